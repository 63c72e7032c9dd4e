package fscopy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/radoscp/radoscp/cephfs"
)

// Migrate moves every regular file under root (or root itself) to data
// pool Options.Pool: each is copied to a staging file with its layout in
// that pool and its metadata, then renamed over the original only if the
// original's size, mtime and ctime did not change during the copy.
// Otherwise the original is left alone and reported. Files already in the
// pool are left alone. A hard-linked file whose links are all under root
// is moved with them, its data copied once (migratelinks.go); one with a
// link elsewhere is left behind, and the error names it. Directories and
// symlinks hold no file data and are not touched.
//
// The renamed file is a new inode: programs holding the old one open keep
// reading and writing the old one. Migrate checks it once more after the
// rename; written since the copy's baseline, it is kept under a recovery
// name and the migrate fails (oldinode.go). Writes made after that check,
// to an inode not kept, are lost with it: migrate files that are not
// being written.
func (c *Copier) Migrate(ctx context.Context, root string) (Summary, error) {
	sum, err := c.migrate(ctx, root)
	sum.PeakInFlight = c.engine.PeakInFlight()
	return sum, err
}

func (c *Copier) migrate(ctx context.Context, root string) (Summary, error) {
	var sum Summary
	if c.opts.Pool == "" {
		return sum, fmt.Errorf("%w: migrate needs a destination pool", ErrUsage)
	}
	if c.opts.Delete {
		return sum, fmt.Errorf("%w: --delete mirrors a tree copy; migrate moves files in place and deletes nothing", ErrUsage)
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
	dirs := []string{path.Dir(root)}
	if st.IsDir() {
		dirs = append(dirs, root)
	}
	release, err := c.confine(dirs...)
	if err != nil {
		return sum, err
	}
	defer release()
	c.opts.NoPreserve = false
	t := &treeCopy{c: c, sum: &sum, root: path.Clean(root), inFlight: newInFlight(c.opts.Files), sh: newShardWalk(c.opts.Shard, root, root)}
	t.migrate(ctx, t.root, st)
	t.migrateGroups(ctx)
	t.g.Wait()
	t.settled(ctx)
	if err := ctx.Err(); err != nil {
		return sum, err
	}
	var failed error
	if sum.Failed > 0 {
		failed = fmt.Errorf("files failed: %d of %d", sum.Failed, sum.Files+sum.Failed+sum.Skipped+sum.Unchanged)
	}
	if err := errors.Join(failed, t.mlinks.leftBehind()); err != nil {
		return sum, err
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
		if g, ok := GroupOf(st); ok {
			t.mlinks.add(g, p, st) // moved as a group after the walk (migratelinks.go)
			return
		}
		t.goFile(ctx, st.Size, func() {
			if ctx.Err() == nil {
				r := t.migrateFile(ctx, p, st, nil)
				r.Size = st.Size
				if r.Outcome == Failed && errors.Is(r.Err, fs.ErrNotExist) {
					if _, err := t.c.fs.Lstat(p); errors.Is(err, fs.ErrNotExist) {
						// Gone since the listing (another sharded
						// worker's staging file, renamed into place
						// before its mark was read): nothing to move.
						return
					}
				}
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
				st, err := t.restat(q, e.Stat)
				if errors.Is(err, fs.ErrNotExist) {
					continue // removed (or renamed) since: nothing to move
				}
				t.migrate(ctx, q, st)
			}
		}
	}
}

// migrateFile moves the file p, with others, its other names (hard links,
// all under the migrated path; see migrateGroup). A file that has other
// links than these (made since the walk counted them) is left in its old
// pool, reported Skipped, and named in the migrate's error.
func (t *treeCopy) migrateFile(ctx context.Context, p string, st cephfs.Stat, others []string) Report {
	// The pool as this client has it (the walk's stat brought the
	// inode): no request to the MDS, as the whole layout would be.
	_, pool, err := t.c.fs.CachedLayout(p)
	if err != nil {
		return Report{Src: p, Dst: p, Outcome: Failed, Err: err}
	}
	if pool == t.c.opts.Pool {
		return Report{Src: p, Dst: p, Outcome: Unchanged, Reason: "already in pool " + pool}
	}
	if t.c.opts.DryRun {
		return t.c.dryRunMigrate(p, st, pool)
	}
	r := Report{Src: p, Dst: p, Outcome: Copied}
	r.Err = t.c.copyFile(ctx, p, p, nil, others, nil, &r)
	var split errHardLink
	switch {
	case errors.As(r.Err, &split):
		r.Outcome, r.Reason, r.Err = Skipped, split.Error()+"; left in pool "+pool, nil
		if len(others) == 0 { // a group's leader: migrateGroup names the group
			t.mlinks.leave(p)
		}
	case r.Err != nil:
		r.Outcome = Failed
	}
	return r
}
