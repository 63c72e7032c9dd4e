package fscopy

import (
	"context"
	"fmt"

	"github.com/radoscp/radoscp/cephfs"
)

// copyUnlessSame copies the regular file src to dst, unless dst already
// is what the copy would make of it (see sameAtDestination): then dst is
// left alone and reported Unchanged, so a rerun of a tree copy copies
// only what changed.
func (c *Copier) copyUnlessSame(ctx context.Context, src, dst string, sst cephfs.Stat, placed map[string]bool) Report {
	r, same, dir := c.sameAtDestination(ctx, src, dst, sst)
	// The quick check passed and Verify found the data different (or
	// could not compare it): the copy repairs dst, and says why.
	repaired := !same && r.Verified != nil
	switch {
	case same:
	case dir:
		// Its rename would fail after the whole copy (EISDIR,
		// ENOTEMPTY): refused before a staging file is made.
		r = Report{Src: src, Dst: dst, Outcome: Failed,
			Err: fmt.Errorf("cephfs:%s is a directory, and a file is not copied over one (--delete replaces it); nothing was written", dst)}
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
// every file. dir reports that dst is a directory, from the same stat.
func (c *Copier) sameAtDestination(ctx context.Context, src, dst string, sst cephfs.Stat) (r Report, same, dir bool) {
	r = Report{Src: src, Dst: dst, Outcome: Unchanged}
	dstat, err := c.fs.Lstat(dst)
	if err != nil {
		return r, false, false
	}
	verifying := c.verifying()
	if c.opts.IgnoreTimes || (c.opts.NoPreserve && !verifying) || !dstat.IsRegular() || dstat.Size != sst.Size {
		return r, false, dstat.IsDir()
	}
	if c.stagingLeft(dst) {
		return r, false, false // the copy removes or resumes it
	}
	if len(c.metadataDiffs(src, dst, sst, dstat)) > 0 {
		return r, false, false
	}
	r.Reason = "the destination has the source's size, mtime, mode, owner and xattrs"
	if verifying {
		var v Verification
		c.verifyData(ctx, src, dst, sst, dstat, &v)
		r.Verified = &v.Data
		if v.Err != nil || len(v.Differences) > 0 {
			return r, false, false
		}
		r.Reason += ", and the same data (verified)"
	}
	return r, true, false
}
