package fscopy

import (
	"context"
	"fmt"
	"path"

	"github.com/radoscp/radoscp/cephfs"
)

// A path whose type changed in the source between two copies, a file
// that became a directory or a directory that became a file, cannot be
// copied over what the target has: mkdir finds a file there, and a
// rename of a staging file onto a directory fails. With Delete (rsync's
// --delete implies its --force) the copy of a directory lists its target
// too, and removes each entry whose source is a directory where the
// target has none, or the other way round, before the entry is copied:
// through the deletion pass's removal (delete.go), by inode, within
// MaxDelete, counted and reported as deleted. Without Delete the entry
// fails, as before.

// replaceTypes removes, in the existing target directory dst of source
// directory src, the entries whose type (directory or not) is not their
// source's (entries, src's listing).
func (t *treeCopy) replaceTypes(ctx context.Context, src, dst string, entries []cephfs.Entry) {
	if !t.c.opts.Delete || (t.fresh != nil && !t.sh.finish()) || t.c.opts.NoClobber || t.sh.worker() {
		return
	}
	d, err := t.c.fs.Ref(dst)
	if err != nil {
		return // a dry run's directory not made, or the copy reports it
	}
	defer d.Release()
	have, err := d.ReadDir()
	if err != nil {
		t.record(Report{Src: src, Dst: dst, Outcome: Failed, Err: fmt.Errorf("listing the target for type changes: %w", err)})
		return
	}
	if t.prune != nil {
		t.prune.kept.keepTarget(d.Ino(), have) // for the deletion pass (keptlistings.go)
	}
	isDir := make(map[string]bool, len(entries))
	for _, e := range entries {
		isDir[e.Name] = e.Stat.IsDir()
	}
	p := t.deleter()
	for _, e := range have {
		dir, ok := isDir[e.Name]
		if !ok || dir == e.Stat.IsDir() || p.kept(refDir{d}, path.Join(src, e.Name), e) {
			continue
		}
		p.remove(ctx, path.Join(src, e.Name), refDir{d}, e.Name)
	}
}

// deleter is the copy's one deletion pass: its removals, made while the
// walk replaces types and after it, count against MaxDelete together.
// The walk and the pass after it do not overlap.
func (t *treeCopy) deleter() *deletions {
	if t.dels == nil {
		t.dels = &deletions{t: t}
	}
	return t.dels
}
