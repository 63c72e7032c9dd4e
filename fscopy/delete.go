package fscopy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"syscall"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/store"
)

// Mirrored deletions (Options.Delete, rsync's --delete-after). Once a
// tree copy is done, and only if nothing of it failed (rsync skips
// deletions after an I/O error: a source directory that could not be
// listed would look empty), the target is walked beside the source and
// every entry of the target whose name its source directory does not
// have is removed: files, symlinks, special files, whole directories.
// Kept are the paths the filter leaves out (rsync's default: excluded
// means protected) and radoscp's own staging files and directories.
//
// The pass never leaves the target. It holds each target directory by
// inode (cephfs.InodeRef) from the root down, and looks up, lists,
// unlinks and removes names in the directory it holds, never by path:
// a name is looked up without following a symlink, so a directory
// another client swaps for a symlink (to a directory outside the target)
// is a symlink to the pass, removed as one or, when the source has that
// name, left alone. What the pass descends into is a directory it looked
// up in one it holds. (A directory another client renames out of the
// target while the pass is inside it is still the one the pass holds:
// the pass cannot know it was moved, as rsync cannot.)
//
// An incremental copy's pass takes the walk's listings of the
// directories it walked instead of listing them again (keptlistings.go).
//
// MaxDelete >= 0 bounds the removals (files and directories alike); the
// pass goes on counting what it would remove beyond it (DeletesLeft) and
// Copy fails with ErrMaxDelete. A dry run reports what would be removed
// and removes nothing. A worker of a sharded copy deletes nothing: only
// the final pass does.

// ErrMaxDelete is a tree copy whose deletions Options.MaxDelete stopped:
// the copy is complete, the target still holds entries the source does
// not.
var ErrMaxDelete = errors.New("the deletion limit stopped the deletions")

// NoDeleteLimit is Options.MaxDelete for no limit.
const NoDeleteLimit = -1

// targetDir is a directory of the target held by inode: every name is
// looked up, listed and removed in it, never resolved from a path.
// *cephfs.InodeRef is one (through refDir); tests wrap it to act between
// the pass's steps, as another client would.
type targetDir interface {
	Path() string
	// Ino is the directory's inode number.
	Ino() uint64
	ReadDir() ([]cephfs.Entry, error)
	// Lookup takes the inode named name, not following a symlink, and
	// its stat; the caller releases it.
	Lookup(name string) (targetDir, cephfs.Stat, error)
	GetXattr(name string) ([]byte, error)
	Unlink(name string) error
	Rmdir(name string) error
	Release()
}

type refDir struct{ *cephfs.InodeRef }

func (d refDir) Lookup(name string) (targetDir, cephfs.Stat, error) {
	r, st, err := d.InodeRef.Lookup(name)
	if err != nil {
		return nil, st, err
	}
	return refDir{r}, st, nil
}

var _ targetDir = refDir{}

// checkDelete refuses Delete where it has no meaning, before anything is
// written: it mirrors a directory tree.
func (c *Copier) checkDelete(src string, st cephfs.Stat, recursive bool) error {
	if !c.opts.Delete {
		return nil
	}
	if !st.IsDir() || !recursive {
		return fmt.Errorf("%w: --delete mirrors a directory tree (cp -r DIR); cephfs:%s is a %s: nothing was written", ErrUsage, src, st.Type())
	}
	if c.opts.MaxDelete < NoDeleteLimit {
		return fmt.Errorf("%w: --max-delete %d: expected 0 or more", ErrUsage, c.opts.MaxDelete)
	}
	return nil
}

// deletions is one deletion pass.
type deletions struct {
	t    *treeCopy
	made int // removals made (or, in a dry run, reported)
	// staging: the pass clears a resumed staging tree (stalestaging.go):
	// nothing in it is kept, nothing counts against the limit, and only
	// a removal that fails is reported.
	staging bool
}

// mirrorDeletes is the deletion pass of the tree copy of src to dst, when
// Delete is set and the copy had no failure; otherwise it does nothing.
// It reports whether it ran.
func (t *treeCopy) mirrorDeletes(ctx context.Context, src, dst string) bool {
	if !t.c.opts.Delete || t.sh.worker() || ctx.Err() != nil || t.sum.Failed > 0 || t.stopped() {
		return false
	}
	root, err := t.c.fs.Ref(dst)
	if t.c.opts.DryRun && errors.Is(err, fs.ErrNotExist) {
		return true // the dry run's target does not exist yet: nothing in it
	}
	if err != nil {
		t.record(Report{Src: src, Dst: dst, Outcome: Failed, Err: fmt.Errorf("deletions: %w", err)})
		return true
	}
	defer root.Release()
	t.deleteIn(ctx, src, refDir{root})
	return true
}

// deleteIn is the deletion pass below the target directory d, whose
// source is the directory src.
func (t *treeCopy) deleteIn(ctx context.Context, src string, d targetDir) {
	t.deleter().dir(ctx, src, d)
}

// dir removes the entries of d that src does not have, and descends into
// the directories both have. Nothing is removed from d unless src could
// be listed.
func (p *deletions) dir(ctx context.Context, src string, d targetDir) {
	if ctx.Err() != nil {
		return
	}
	want, have, err := p.listings(src, d)
	if err != nil {
		p.t.record(Report{Src: src, Dst: d.Path(), Outcome: Failed, Err: fmt.Errorf("deletions: %w", err)})
		return
	}
	in := make(map[string]cephfs.Stat, len(want))
	for _, e := range want {
		in[e.Name] = e.Stat
	}
	for _, e := range have {
		if ctx.Err() != nil {
			return
		}
		s := path.Join(src, e.Name)
		if p.kept(d, s, e) {
			continue
		}
		sst, ok := in[e.Name]
		if ok && p.staging && p.t.c.opts.Filter.Excluded(relative(p.t.root, s), sst.IsDir()) {
			ok = false // copied by a run with another filter
		}
		if !ok {
			p.remove(ctx, s, d, e.Name)
			continue
		}
		if !sst.IsDir() || !e.Stat.IsDir() {
			continue // a name the source has: the copy's, never removed
		}
		if p.t.pruned(s) {
			continue // unchanged since the snapshot the target holds: nothing to delete (prune.go)
		}
		child, st, err := d.Lookup(e.Name)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				p.t.record(Report{Src: s, Dst: path.Join(d.Path(), e.Name), Outcome: Failed, InTarget: true, Err: fmt.Errorf("deletions: %w", err)})
			}
			continue
		}
		if st.IsDir() { // not what the listing saw if another client swapped it
			p.dir(ctx, s, child)
		}
		child.Release()
	}
}

// listings lists the source directory src and the target directory d,
// or takes an incremental copy's walk's listings of them
// (keptlistings.go).
func (p *deletions) listings(src string, d targetDir) (want, have []cephfs.Entry, err error) {
	var kept *keptListings
	if p.t.prune != nil && !p.staging {
		kept = &p.t.prune.kept
	}
	want, ok := kept.source(src)
	if !ok {
		if want, err = p.t.c.fs.ReadDir(src); err != nil {
			return nil, nil, err
		}
	}
	if have, ok = kept.target(d.Ino()); !ok {
		if have, err = d.ReadDir(); err != nil {
			return nil, nil, err
		}
	}
	return want, have, nil
}

// kept reports whether entry e of target directory d, whose source path
// would be s, is left whatever the source holds: excluded by the filter,
// or radoscp's own staging file, staging link or target staging
// directory.
func (p *deletions) kept(d targetDir, s string, e cephfs.Entry) bool {
	if p.staging {
		return false
	}
	if p.t.c.opts.Filter.Excluded(relative(p.t.root, s), e.Stat.IsDir()) {
		return true
	}
	if !strings.HasPrefix(e.Name, stagingStart) {
		return false
	}
	if e.Stat.IsRegular() && strings.HasPrefix(e.Name, stagingStart+"-link") {
		return true // a staging link: it cannot carry a mark (staging.go)
	}
	child, st, err := d.Lookup(e.Name)
	if err != nil {
		return true // gone, or unreadable: not removed on a guess
	}
	defer child.Release()
	switch {
	case st.IsRegular():
		if modeMarked(st) {
			return isStagingName(e.Name)
		}
		mark, err := child.GetXattr(xattrStaging) // an older radoscp's mark
		return err == nil && isStagingMark(e.Name, mark)
	case st.IsDir() && strings.HasPrefix(e.Name, targetStagingPrefix):
		_, err := child.GetXattr(xattrTree)
		return err == nil
	}
	return false
}

// remove removes entry name of d (a directory with all it holds), whose
// source s is gone; past the limit it only counts what it would remove.
// It reports whether the entry is gone (or would be, in a dry run).
func (p *deletions) remove(ctx context.Context, s string, d targetDir, name string) bool {
	dst := path.Join(d.Path(), name)
	child, st, err := d.Lookup(name)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		p.t.record(Report{Src: s, Dst: dst, Outcome: Failed, InTarget: true, Err: fmt.Errorf("deletions: %w", err)})
		return false
	}
	if st.IsDir() {
		empty := p.empty(ctx, s, child)
		child.Release()
		if !empty {
			if p.over() {
				p.left() // counted as it would be with its contents gone
			}
			return false
		}
	} else {
		child.Release()
	}
	return p.removeName(s, d, name, st.IsDir())
}

// empty removes everything in directory d (the target's copy of the
// source path s, gone); it reports whether d is left empty. Entries the
// filter leaves out or radoscp's staging files keep it.
func (p *deletions) empty(ctx context.Context, s string, d targetDir) bool {
	have, err := d.ReadDir()
	if err != nil {
		p.t.record(Report{Src: s, Dst: d.Path(), Outcome: Failed, InTarget: true, Err: fmt.Errorf("deletions: %w", err)})
		return false
	}
	empty := true
	for _, e := range have {
		if ctx.Err() != nil {
			return false
		}
		es := path.Join(s, e.Name)
		if p.kept(d, es, e) {
			p.t.record(Report{Src: es, Dst: path.Join(d.Path(), e.Name), Outcome: Skipped, InTarget: true,
				Reason: "not deleted with its directory: excluded, or a staging file of radoscp's"})
			empty = false
			continue
		}
		if !p.remove(ctx, es, d, e.Name) {
			empty = false
		}
	}
	return empty
}

// removeName removes name from d, within the limit, and reports it.
func (p *deletions) removeName(s string, d targetDir, name string, dir bool) bool {
	r := Report{Src: s, Dst: path.Join(d.Path(), name), Outcome: Deleted, InTarget: true, DryRun: p.t.c.opts.DryRun}
	if p.staging {
		return p.removeStale(d, name, dir)
	}
	if p.over() {
		p.left()
		return false
	}
	if !r.DryRun {
		var err error
		if dir {
			err = d.Rmdir(name)
		} else {
			err = d.Unlink(name)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return true // another client removed it
		}
		if err != nil {
			r.Outcome, r.Err = Failed, err
			if e := store.ErrnoOf(err); e == syscall.EISDIR || e == syscall.ENOTDIR || e == syscall.ENOTEMPTY {
				r.Err = fmt.Errorf("%w (changed by another client during the deletions; left alone)", err)
			}
			p.t.record(r)
			return false
		}
	}
	p.made++
	p.t.record(r)
	return true
}

// over reports whether the limit is reached: no more removals.
func (p *deletions) over() bool {
	if p.staging {
		return false
	}
	max := p.t.c.opts.MaxDelete
	return max != NoDeleteLimit && p.made >= max
}

// left counts a removal the limit stopped.
func (p *deletions) left() {
	p.t.c.repMu.Lock()
	p.t.sum.DeletesLeft++
	p.t.c.repMu.Unlock()
}

// deletesLeftErr is the copy's error when the limit stopped deletions.
func (s Summary) deletesLeftErr(max int) error {
	if s.DeletesLeft == 0 {
		return nil
	}
	return fmt.Errorf("%w: --max-delete %d reached after %d deletions; %d more entries of the target are not in the source and were left",
		ErrMaxDelete, max, s.Deleted, s.DeletesLeft)
}

// noDeletes adds to the error of a copy that failed before its deletion
// pass (ran: whether the pass ran) that --delete, if given, made its pass
// of none: it deleted nothing, or only the replaced entries, those of
// replaced (the target's entries whose type changed, removed during the
// walk, replace.go).
func (c *Copier) noDeletes(ran bool, replaced int, err error) error {
	if err == nil || !c.opts.Delete || ran {
		return err
	}
	if replaced > 0 {
		return fmt.Errorf("%w; --delete removed only the %d entries of the target reported deleted above, where the source's type had changed (a file where the target had a directory, or the other way round), before copying the source's; the rest were not deleted (deletions are skipped after a failure, as rsync skips them after an I/O error)", err, replaced)
	}
	return fmt.Errorf("%w; --delete deleted nothing (deletions are skipped after a failure, as rsync skips them after an I/O error)", err)
}
