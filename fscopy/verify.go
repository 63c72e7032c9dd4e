package fscopy

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/verify"
	"github.com/radoscp/radoscp/window"
)

// Verification is what verifying one path found.
type Verification struct {
	Src, Dst string
	Type     string // regular file, directory, symlink, ...
	// Differences name each way dst is not src: metadata, then data.
	Differences []string
	// Data is the data comparison of a regular file.
	Data verify.Result
	Err  error
}

// Same reports whether dst was checked and found equal to src.
func (v Verification) Same() bool { return v.Err == nil && len(v.Differences) == 0 }

// VerifySummary counts a tree's verifications.
type VerifySummary struct {
	Paths, Differing, Failed int
	// Bytes and ClientBytes are the file data compared and what crossed
	// the client to compare it.
	Bytes, ClientBytes uint64
}

// Verify compares dst with src, both as given (no cp rule for an existing
// directory): regular files by their data, compared as Options.Verify
// says (checksums on the OSDs unless it says Client), and the metadata a
// copy keeps (mode, owner, mtime and xattrs, ACLs included; with NoPreserve only
// the type); symlinks by target; directories by their entries, with
// recursive. report receives every path's verification.
func (c *Copier) Verify(ctx context.Context, src, dst string, recursive bool, report func(Verification)) (VerifySummary, error) {
	var sum VerifySummary
	sst, err := c.fs.Lstat(src)
	if err != nil {
		return sum, fmt.Errorf("%w: source: %w", ErrUsage, err)
	}
	if sst.IsDir() && !recursive {
		return sum, fmt.Errorf("%w: cephfs:%s is a directory: give -r to verify it", ErrUsage, src)
	}
	if _, err := c.fs.Lstat(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return sum, err
	}
	if c.opts.Shard.Finish {
		return sum, fmt.Errorf("%w: verify has no final pass: its workers together compare every path once", ErrUsage)
	}
	c.verifyPath(ctx, newShardWalk(c.opts.Shard, src, dst), src, dst, sst, recursive, func(v Verification) {
		sum.Paths++
		sum.Bytes += v.Data.Bytes
		sum.ClientBytes += v.Data.ClientBytes
		switch {
		case v.Err != nil:
			sum.Failed++
		case len(v.Differences) > 0:
			sum.Differing++
		}
		report(v)
	})
	if err := ctx.Err(); err != nil {
		return sum, err
	}
	if sum.Failed > 0 {
		return sum, fmt.Errorf("%d of %d paths could not be verified", sum.Failed, sum.Paths)
	}
	if sum.Differing > 0 {
		return sum, fmt.Errorf("%w: %d of %d paths differ", ErrMismatch, sum.Differing, sum.Paths)
	}
	return sum, nil
}

func (c *Copier) verifyPath(ctx context.Context, w *shardWalk, src, dst string, sst cephfs.Stat, recursive bool, report func(Verification)) {
	if ctx.Err() != nil {
		return
	}
	if !w.owns(src, sst) {
		c.verifyOthers(ctx, w, src, dst, sst, report)
		return
	}
	v := Verification{Src: src, Dst: dst, Type: sst.Type()}
	dstat, err := c.fs.Lstat(dst)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		v.Differences = append(v.Differences, "missing from the destination")
		report(v)
		return
	case err != nil:
		v.Err = err
		report(v)
		return
	case dstat.Mode&^0o7777 != sst.Mode&^0o7777:
		v.Differences = append(v.Differences, fmt.Sprintf("a %s, the source a %s", dstat.Type(), sst.Type()))
		report(v)
		return
	}
	v.Differences = append(v.Differences, c.metadataDiffs(src, dst, sst, dstat)...)
	switch {
	case sst.IsRegular():
		c.verifyData(ctx, src, dst, sst, dstat, &v)
	case sst.IsSymlink():
		a, err1 := c.fs.Readlink(src)
		b, err2 := c.fs.Readlink(dst)
		if v.Err = errors.Join(err1, err2); v.Err == nil && a != b {
			v.Differences = append(v.Differences, fmt.Sprintf("target %q, the source's %q", b, a))
		}
	case sst.IsDir():
		c.verifyDir(ctx, w, src, dst, recursive, &v, report)
	case sst.IsSpecial() && sst.Rdev != dstat.Rdev:
		dmaj, dmin := dstat.Device()
		smaj, smin := sst.Device()
		v.Differences = append(v.Differences, fmt.Sprintf("device %d:%d, the source's %d:%d", dmaj, dmin, smaj, smin))
	}
	report(v)
}

// metadataDiffs compares what a copy keeps of an inode's metadata.
func (c *Copier) metadataDiffs(src, dst string, s, d cephfs.Stat) []string {
	if c.opts.NoPreserve {
		return nil
	}
	var out []string
	if !s.IsSymlink() && s.Perm() != d.Perm() {
		out = append(out, fmt.Sprintf("mode %04o, the source's %04o", d.Perm(), s.Perm()))
	}
	if s.UID != d.UID || s.GID != d.GID {
		out = append(out, fmt.Sprintf("owner %d:%d, the source's %d:%d", d.UID, d.GID, s.UID, s.GID))
	}
	if !s.Mtime.Equal(d.Mtime) {
		out = append(out, fmt.Sprintf("mtime %s, the source's %s", d.Mtime.UTC().Format("2006-01-02T15:04:05.999999999Z"), s.Mtime.UTC().Format("2006-01-02T15:04:05.999999999Z")))
	}
	if s.IsSymlink() {
		return out
	}
	sx, err1 := c.fs.Xattrs(src)
	dx, err2 := c.fs.Xattrs(dst)
	if err := errors.Join(err1, err2); err != nil {
		out = append(out, fmt.Sprintf("xattrs not compared: %v", err))
	} else if !maps.EqualFunc(sx, dx, bytes.Equal) {
		out = append(out, fmt.Sprintf("xattrs %s, the source's %s", xattrList(dx, sx), xattrList(sx, dx)))
	}
	return out
}

// verifyData compares the data of two regular files.
func (c *Copier) verifyData(ctx context.Context, src, dst string, s, d cephfs.Stat, v *Verification) {
	sl, err := c.fs.Layout(src)
	if err != nil {
		v.Err = err
		return
	}
	dl, err := c.fs.Layout(dst)
	if err != nil {
		v.Err = err
		return
	}
	sp, err := c.pool(sl, s.Snap)
	if err != nil {
		v.Err = err
		return
	}
	dp, err := c.pool(dl, d.Snap)
	if err != nil {
		v.Err = err
		return
	}
	mode := cmp.Or(c.opts.Verify, verify.OSD)
	v.Data, v.Err = verify.Check(ctx, mode,
		radoscp.Source{Objects: sp, Layout: sl.Layout, Names: layout.CephFS(s.Ino), Size: s.Size},
		radoscp.Source{Objects: dp, Layout: dl.Layout, Names: layout.CephFS(d.Ino), Size: d.Size},
		cmp.Or(c.opts.Copy.Window, window.DefaultWidth))
	for _, diff := range v.Data.Differences {
		v.Differences = append(v.Differences, diff.String())
	}
}

// verifyDir compares two directories' entries, and with recursive their
// contents. Staging files left in dst are differences.
func (c *Copier) verifyDir(ctx context.Context, w *shardWalk, src, dst string, recursive bool, v *Verification, report func(Verification)) {
	se, err1 := c.fs.ReadDir(src)
	de, err2 := c.fs.ReadDir(dst)
	if v.Err = errors.Join(err1, err2); v.Err != nil {
		return
	}
	have := map[string]cephfs.Entry{}
	for _, e := range de {
		have[e.Name] = e
	}
	for _, e := range se {
		if c.isStaging(src, e) {
			continue
		}
		delete(have, e.Name)
		if recursive {
			c.verifyPath(ctx, w, path.Join(src, e.Name), path.Join(dst, e.Name), e.Stat, recursive, report)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(have)) {
		what := "not in the source"
		if c.isStaging(dst, have[name]) {
			what = "a staging file left behind"
		}
		v.Differences = append(v.Differences, fmt.Sprintf("%s: %s", path.Join(dst, name), what))
	}
}

// xattrList names the xattrs of x, marking with * those whose value
// other does not have (missing or different).
func xattrList(x, other map[string][]byte) string {
	var names []string
	for _, n := range slices.Sorted(maps.Keys(x)) {
		if v, ok := other[n]; !ok || !bytes.Equal(v, x[n]) {
			n += "*"
		}
		names = append(names, n)
	}
	return "[" + strings.Join(names, " ") + "]"
}
