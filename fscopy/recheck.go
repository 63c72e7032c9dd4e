package fscopy

import (
	"context"
	"errors"
	"io/fs"
	"path"

	"github.com/radoscp/radoscp/cephfs"
)

// A file or directory moved, during a tree copy, from a directory the walk
// has not listed yet into one it has listed already is in neither
// listing. After the walk, the copy stats every source directory it
// listed once more; one whose mtime or ctime moved since its listing is
// listed again, and an entry whose destination does not exist is copied
// then, as the final pass of a sharded copy copies what no worker did
// (a sharded run leaves this to its final pass). One record per directory
// is kept for the whole copy, as for the directories' times. A move made
// during this second look is not looked for again.

// listedDir is a source directory the walk listed, with its stat from
// right before the listing.
type listedDir struct {
	src, dst string
	st       cephfs.Stat
}

// listed stats the source directory src afresh, before the walk lists it:
// the stat the recheck compares with (a stat that asks for the mtime has
// the MDS gather its fragments' first, see setDirTimes).
func (t *treeCopy) listed(src, dst string) {
	if t.sh != nil || t.c.opts.DryRun {
		return
	}
	st, err := t.c.fs.Lstat(src)
	if err != nil {
		return // the listing reports it
	}
	t.c.repMu.Lock()
	t.listedDirs = append(t.listedDirs, listedDir{src: src, dst: dst, st: st})
	t.c.repMu.Unlock()
}

// recheck looks again at the source directories that changed since the
// walk listed them, and copies what the walk missed in them.
func (t *treeCopy) recheck(ctx context.Context) {
	t.c.repMu.Lock()
	dirs := t.listedDirs
	t.c.repMu.Unlock()
	for _, d := range dirs {
		if ctx.Err() != nil {
			return
		}
		now, err := t.c.fs.Lstat(d.src)
		if err != nil || (now.Mtime.Equal(d.st.Mtime) && now.Ctime.Equal(d.st.Ctime)) {
			continue // removed since (nothing of it to copy), or unchanged
		}
		entries, err := t.c.fs.ReadDir(d.src)
		if err != nil {
			t.record(Report{Src: d.src, Dst: d.dst, Outcome: Failed, Err: err})
			continue
		}
		placed := map[string]bool{}
		for _, e := range entries {
			placed[e.Name] = true
		}
		for _, e := range entries {
			p, q := path.Join(d.src, e.Name), path.Join(d.dst, e.Name)
			if t.c.isStaging(d.src, e) || t.excluded(p, e.Stat) {
				continue
			}
			if _, err := t.c.fs.Lstat(q); !errors.Is(err, fs.ErrNotExist) {
				continue // copied (or its copy failed, reported)
			}
			t.copy(ctx, p, q, t.freshStat(p, e.Stat), placed)
		}
	}
	t.g.Wait()
}
