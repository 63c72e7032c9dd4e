package fscopy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
)

// A staging tree taken over from an interrupted copy (freshtree.go) may
// hold what the source no longer has: files that run copied whose sources
// were removed or renamed since, entries a run with another filter
// copied, or the per-file staging files (.radoscp.NAME.N) a radoscp
// before the per-tree copy left in a subvolume clone's tree. Published,
// they would make the new target differ from its source. The staging
// tree is this copy's alone (locked, made by radoscp), so nothing in it
// is kept: before it is published, every entry whose source directory
// lacks its name is removed, by the deletion pass's inode-held walk
// (delete.go) with no limit. A removal that fails fails the copy, and
// the target is not made. A sharded copy's staging tree is not cleared:
// its workers share it, and its final pass reports what the source lacks
// as extra (shard.go).

// pruneStaging clears the resumed staging tree staging of what src lacks,
// unless the copy failed or stopped (nothing is published then; the next
// run clears it).
func (t *treeCopy) pruneStaging(ctx context.Context, src, staging string) {
	if t.fresh == nil || !t.fresh.resumed || t.fresh.shared || ctx.Err() != nil || t.sum.Failed > 0 || t.stopped() {
		return
	}
	root, err := t.c.fs.Ref(staging)
	if err != nil {
		t.record(Report{Src: src, Dst: staging, Outcome: Failed, Err: fmt.Errorf("clear the interrupted copy's staging tree: %w", err)})
		return
	}
	defer root.Release()
	p := &deletions{t: t, staging: true}
	p.dir(ctx, src, refDir{root})
}

// removeStale removes name, which the source lacks, from d in a staging
// tree; only a failure is reported.
func (p *deletions) removeStale(d targetDir, name string, dir bool) bool {
	var err error
	if dir {
		err = d.Rmdir(name)
	} else {
		err = d.Unlink(name)
	}
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return true
	}
	p.t.record(Report{Src: path.Join(d.Path(), name), Dst: path.Join(d.Path(), name), Outcome: Failed,
		Err: fmt.Errorf("remove what an interrupted copy left in the staging tree and the source no longer has: %w", err)})
	return false
}
