package fscopy

import (
	"context"

	"github.com/radoscp/radoscp/cephfs"
)

// copyUnlessSame copies the regular file src to dst, unless dst already
// is what the copy would make of it (see sameAtDestination): then dst is
// left alone and reported Unchanged, so a rerun of a tree copy copies
// only what changed.
func (c *Copier) copyUnlessSame(ctx context.Context, src, dst string, sst cephfs.Stat, placed map[string]bool) Report {
	r, same := c.sameAtDestination(ctx, src, dst, sst)
	// The quick check passed and Verify found the data different (or
	// could not compare it): the copy repairs dst, and says why.
	repaired := !same && r.Verified != nil
	switch {
	case same:
	case c.opts.DryRun:
		r = c.dryRunFile(src, dst, sst)
	default:
		r = c.copyFileAmong(ctx, src, dst, placed)
		if repaired && r.Err == nil && r.Reason == "" {
			r.Reason = "copied again: the destination had the source's size, mtime, mode, owner and xattrs but not its data (verified)"
		}
	}
	r.Size = sst.Size
	return r
}

// sameAtDestination is rsync's quick check, made stricter by what a copy
// keeps: dst is a regular file with src's size, mtime, mode, owner and
// xattrs, and no interrupted copy's staging file sits next to it.
// With Options.Verify the data must also be the same (by OSD checksums,
// or through the client), so that a file changed in place with its
// mtime put back is copied again. With NoPreserve the copy keeps no
// times, so only Verify can find a file the same; IgnoreTimes copies
// every file.
func (c *Copier) sameAtDestination(ctx context.Context, src, dst string, sst cephfs.Stat) (Report, bool) {
	r := Report{Src: src, Dst: dst, Outcome: Unchanged}
	verifying := c.verifying()
	if c.opts.IgnoreTimes || (c.opts.NoPreserve && !verifying) {
		return r, false
	}
	dstat, err := c.fs.Lstat(dst)
	if err != nil || !dstat.IsRegular() || dstat.Size != sst.Size {
		return r, false
	}
	if c.stagingLeft(dst) {
		return r, false // the copy removes or resumes it
	}
	if len(c.metadataDiffs(src, dst, sst, dstat)) > 0 {
		return r, false
	}
	r.Reason = "the destination has the source's size, mtime, mode, owner and xattrs"
	if verifying {
		var v Verification
		c.verifyData(ctx, src, dst, sst, dstat, &v)
		r.Verified = &v.Data
		if v.Err != nil || len(v.Differences) > 0 {
			return r, false
		}
		r.Reason += ", and the same data (verified)"
	}
	return r, true
}
