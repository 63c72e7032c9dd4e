package fscopy

import (
	"context"
	"fmt"
	"path"

	"github.com/radoscp/radoscp/cephfs"
)

// Migrate moves every regular file under root (or root itself) to data
// pool Options.Pool: each is copied to a staging file with its layout in
// that pool and its metadata, then renamed over the original only if the
// original's size, mtime and ctime did not change during the copy.
// Otherwise the original is left alone and reported. Files already in the
// pool are left alone; hard links are reported and left alone, since
// replacing one name would split it from the others. Directories and
// symlinks hold no file data and are not touched.
//
// The renamed file is a new inode: programs holding the old one open keep
// reading the old data, and a write landing between the check and the
// rename goes to the old inode. Migrate files that are not being written.
func (c *Copier) Migrate(ctx context.Context, root string) (Summary, error) {
	var sum Summary
	if c.opts.Pool == "" {
		return sum, fmt.Errorf("%w: migrate needs a destination pool", ErrUsage)
	}
	// Migrate replaces files in place: inside a snapshot it would be
	// writing to a read-only destination.
	if _, err := c.checkPaths("", root); err != nil {
		return sum, err
	}
	st, err := c.fs.Lstat(root)
	if err != nil {
		return sum, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	c.opts.NoPreserve = false
	t := &treeCopy{c: c, sum: &sum, root: path.Clean(root), inFlight: newInFlight(c.opts.Files), sh: newShardWalk(c.opts.Shard, root, root)}
	t.migrate(ctx, t.root, st)
	t.g.Wait()
	t.settled(ctx)
	if err := ctx.Err(); err != nil {
		return sum, err
	}
	if sum.Failed > 0 {
		return sum, fmt.Errorf("%d of %d files failed", sum.Failed, sum.Files+sum.Failed+sum.Skipped+sum.Unchanged)
	}
	return sum, sum.findings()
}

func (t *treeCopy) migrate(ctx context.Context, p string, st cephfs.Stat) {
	if ctx.Err() != nil {
		return
	}
	switch {
	case st.IsRegular():
		if t.sh != nil && t.skipMigrate(p, st) {
			return
		}
		t.goFile(ctx, st.Size, func() {
			if ctx.Err() == nil {
				r := t.migrateFile(ctx, p, st)
				r.Size = st.Size
				t.record(r)
			}
		})
	case st.IsDir():
		entries, err := t.c.fs.ReadDir(p)
		if err != nil {
			t.record(Report{Src: p, Dst: p, Outcome: Failed, Err: err})
			return
		}
		for _, e := range entries {
			if q := path.Join(p, e.Name); !t.c.isStaging(p, e) && !t.excluded(q, e.Stat) {
				// Decided on a fresh stat, as a tree copy's are: a
				// listing's link count can be stale, and a hard link
				// migrated by one name would be split from the others
				// (a link made after this stat, copyFile finds).
				t.migrate(ctx, q, t.freshStat(q, e.Stat))
			}
		}
	}
}

func (t *treeCopy) migrateFile(ctx context.Context, p string, st cephfs.Stat) Report {
	if st.Nlink > 1 {
		return Report{Src: p, Dst: p, Outcome: Skipped, Reason: errHardLink{st.Nlink}.Error()}
	}
	l, err := t.c.fs.Layout(p)
	if err != nil {
		return Report{Src: p, Dst: p, Outcome: Failed, Err: err}
	}
	if l.Pool == t.c.opts.Pool {
		return Report{Src: p, Dst: p, Outcome: Unchanged, Reason: "already in pool " + l.Pool}
	}
	if t.c.opts.DryRun {
		return t.c.dryRunMigrate(p, st, l.Pool)
	}
	return t.c.CopyFile(ctx, p, p)
}
