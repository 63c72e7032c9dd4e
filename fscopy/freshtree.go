package fscopy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"
	"syscall"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
)

// A tree copy into a target it creates (cp -r SRC NEW, NEW not there).
//
// The whole tree is built under the target's staging name, a directory
// .radoscp.NEW beside it, made with the tree mark (xattrTree, the source's
// path) and locked (an flock through the MDS, held while the copy runs;
// the MDS drops it with a dead client's session, so the next run takes it
// over). That lock is the copy's only one: the files inside are created
// under their final names, with no staging name, mark, lock, rename or
// settling of their own. Their mode, owner and times are set through the
// open file, which this client holds exclusive caps on (it just created
// it): libcephfs buffers them as dirty caps, flushed with the data's size
// in cap messages, not MDS requests. Nothing is fsynced per file: once
// every file is copied, the sources are listed again (one listing a
// directory, see recheckSources), a file found changed fails the copy, the
// directories get their times, one sync of the file system sends every
// file's size and metadata to the MDS and waits until it has them, and
// only then is the staging directory renamed to NEW: NEW appears whole, or
// not at all. The mark is removed after the rename (a run killed in
// between leaves NEW marked, and a rerun continues into it as into any
// interrupted tree copy's target).
//
// A run that fails or is killed leaves the staging tree, marked. A rerun
// of the same copy (with or without --resume) takes it over and walks it
// as a copy into an existing tree would: a file with its source's size,
// mtime, mode, owner and xattrs is kept (sameAtDestination); a file of
// more than one object that an interrupted copy left records its source
// and EOF as a staging file does, and with --resume is continued from it
// (else copied again); anything else is copied again.
//
// Times through an MDS restart: a file's times reach the MDS in a cap
// flush; a restart before the flush is journaled has the client send it
// again on reconnect. A restart that recovers a file (reconnect.go) is
// found as for settled files: every file is remembered, and the times
// are checked and set again, before the rename, if the client's MDS
// sessions changed during the run.

// freshTree is a tree copy into a target it creates, built under staging.
type freshTree struct {
	dst, staging string
	lock         *cephfs.File // the staging directory, flocked
	resumed      bool         // the staging tree is an interrupted copy's
	// hidden is a target at a staging name (staging is dst): its caller
	// (a subvolume clone) made its place hidden and moves it in itself,
	// so publish renames nothing.
	hidden bool
	// shared: the tree of a sharded copy's workers (sharedtree.go); a
	// worker's share is its lock file, locked.
	shared bool
	share  *cephfs.File

	mu sync.Mutex
	// sources are the files copied, by source directory, with the stat
	// each copy started from; fromSnaps those copied from a snapshot,
	// by snapshot.
	sources   map[string][]copiedSource
	fromSnaps map[*snapshot][]copiedSource
}

type copiedSource struct {
	name, dst string
	st        cephfs.Stat
}

// freshTarget starts the copy of tree src into dst, which does not
// exist, under dst's staging directory, or takes over the one an
// interrupted copy of src left. A dst at a staging name is hidden
// already (a subvolume clone builds its tree in one, and moves it in
// when complete): it is its own staging directory, made marked, or
// taken over when an interrupted copy of src marked it. It returns nil
// (and no error) when dst exists (unmarked, for a hidden one), or the
// copy is one the per-file staging serves: --no-clobber, a dry run. A
// sharded copy's workers share one staging tree (sharedTarget). ErrBusy
// is another copy of src to dst, alive.
func (c *Copier) freshTarget(src, dst string) (*freshTree, error) {
	if c.opts.NoClobber || c.opts.DryRun {
		return nil, nil
	}
	if c.opts.Shard.On() {
		return c.sharedTarget(src, dst)
	}
	hidden := strings.HasPrefix(path.Base(dst), stagingStart)
	_, err := c.fs.Lstat(dst)
	left := hidden && err == nil && c.ownMarked(src, dst)
	if !errors.Is(err, fs.ErrNotExist) && !left {
		return nil, nil // there (or unknown: the per-file path reports it)
	}
	// Under a directory quota, a copy the quota stops leaves what it
	// copied in place, as cp -a does, not a hidden tree holding quota.
	if over, err := c.quotasOver(path.Dir(dst)); err != nil || len(over) > 0 {
		return nil, nil
	}
	ft := &freshTree{dst: dst, staging: stagingPath(dst, 0), hidden: hidden,
		sources: map[string][]copiedSource{}, fromSnaps: map[*snapshot][]copiedSource{}}
	if hidden {
		ft.staging = dst
	}
	if left {
		err = fs.ErrExist
	} else {
		err = c.mkdirMarked(src, ft.staging)
	}
	if errors.Is(err, fs.ErrExist) {
		if !c.ownMarked(src, ft.staging) {
			return nil, fmt.Errorf("%w: cephfs:%s, where the copy of cephfs:%s to cephfs:%s is built, is taken by something that is not an interrupted copy of it (radoscp leaves it alone); nothing was changed",
				ErrUsage, ft.staging, src, dst)
		}
		ft.resumed, err = true, nil
	}
	if err != nil {
		return nil, err
	}
	if ft.lock, err = c.fs.OpenDir(ft.staging); err != nil {
		return nil, err
	}
	if err := ft.lock.TryLock(); err != nil {
		defer ft.lock.Close()
		owner := ownerOf(ft.lock, "owner not recorded yet")
		return nil, fmt.Errorf("%w: cephfs:%s is being built in cephfs:%s by another copy (%s); nothing was changed: %w", ErrBusy, dst, ft.staging, owner, err)
	}
	// The copy that held the lock may have put it in place since.
	if st, err := c.fs.Lstat(ft.staging); err != nil || st.Ino != ft.lock.Ino() {
		ft.lock.Close()
		return nil, fmt.Errorf("%w: another copy put cephfs:%s in place meanwhile; nothing was changed", ErrBusy, dst)
	}
	if err := recordOwner(ft.lock); err != nil {
		ft.lock.Close()
		return nil, err
	}
	return ft, nil
}

// marked reports whether dir carries the mark of a tree copy of src.
func (c *Copier) marked(src, dir string) bool {
	v, err := c.fs.GetXattr(dir, xattrTree)
	return err == nil && string(v) == src
}

// final is the path p, in the staging tree, will have once it is put in
// place.
func (ft *freshTree) final(p string) string {
	if ft == nil || (p != ft.staging && !strings.HasPrefix(p, ft.staging+"/")) {
		return p
	}
	return ft.dst + strings.TrimPrefix(p, ft.staging)
}

// kept says, for a failed copy's error, where a new target's copy is
// kept; nothing for an existing target (nil).
func (ft *freshTree) kept() string {
	if ft == nil || ft.hidden {
		return "" // a hidden target's caller says what becomes of it
	}
	return fmt.Sprintf("; cephfs:%s was not made: the copy is kept in cephfs:%s, which a rerun continues", ft.dst, ft.staging)
}

// copy copies the regular file src to dst in the staging tree: kept if an
// interrupted run left it complete, else copied.
func (ft *freshTree) copy(ctx context.Context, c *Copier, src, dst string, sst cephfs.Stat) Report {
	if ft.resumed {
		if r, same, _ := c.sameAtDestination(ctx, src, dst, sst); same {
			r.Size = sst.Size
			return r
		}
	}
	r := Report{Src: src, Dst: dst, Outcome: Copied, Size: sst.Size}
	if r.Err = c.copyFile(ctx, src, dst, nil, nil, ft, &r); r.Err != nil {
		r.Outcome = Failed
	}
	return r
}

// noteSource records the stat src's copy started from, or the snapshot
// it was read from, for recheckSources.
func (ft *freshTree) noteSource(src, dst string, st cephfs.Stat, snap *snapshot) {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	if snap != nil {
		ft.fromSnaps[snap] = append(ft.fromSnaps[snap], copiedSource{name: src, dst: dst, st: st})
		return
	}
	dir := path.Dir(src)
	ft.sources[dir] = append(ft.sources[dir], copiedSource{name: path.Base(src), dst: dst, st: st})
}

// openNew creates dst in the staging tree, or continues (Resume) or
// replaces what an interrupted run left there (the walk found it not a
// complete copy of src). The file gets the layout and, over one object,
// the source record a staging file gets (initStaging); no mark or lock:
// the staging tree's is the copy's.
func (c *Copier) openNew(dst string, sst cephfs.Stat, sl cephfs.FileLayout, single bool, r *Report) (*cephfs.File, *truncate.CephFS, error) {
	file, err := c.fs.CreateExclusive(dst, 0o600)
	if errors.Is(err, fs.ErrExist) {
		var d *truncate.CephFS
		if file, d, err = c.reuseNew(dst, sst, sl, r); file != nil || err != nil {
			return file, d, err
		}
		file, err = c.fs.CreateExclusive(dst, 0o600)
	}
	if err != nil {
		return nil, nil, err
	}
	d, err := c.initStaging(file, sst, sl, single)
	if err != nil {
		_ = c.removeStaging(file)
		file.Close()
		return nil, nil, err
	}
	return file, d, nil
}

// reuseNew handles the file an interrupted run left at dst in the
// staging tree: with Resume it continues a partial copy of the same,
// unchanged source (returning it), else it removes it (returning no file
// and no error).
func (c *Copier) reuseNew(dst string, sst cephfs.Stat, sl cephfs.FileLayout, r *Report) (*cephfs.File, *truncate.CephFS, error) {
	old, err := c.fs.OpenWriteNoFollow(dst)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cephfs:%s, left in the staging tree by an interrupted copy: %w", dst, err)
	}
	// A file of one object records nothing to continue from: it is
	// simply copied again.
	if _, err := old.GetXattr(xattrSource); err == nil {
		d, err := c.resumeLeft(old, sst, sl, r, "copied again over what an interrupted copy left (a resume would continue it)")
		if err != nil {
			old.Close()
			return nil, nil, err
		}
		if d != nil {
			return old, d, nil
		}
	}
	defer old.Close()
	coverForPurge(old, sst.Size)
	if err := c.removeStaging(old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	return nil, nil, nil
}

// leaveNew gives a complete copy in the staging tree its source's
// metadata and leaves it there, open caps and all: no fsync (the sync
// before the tree is put in place sends it), no rename, no settling. The
// source is checked with the tree's (recheckSources), a snapshot's too.
func (c *Copier) leaveNew(file *cephfs.File, sf *srcFile, dst string, sst cephfs.Stat, snap *snapshot, unrecorded bool, ft *freshTree) error {
	var marks []string
	if !unrecorded {
		marks = []string{truncate.XattrEOF, xattrSource}
	}
	if err := c.finish(file, sf, sst, marks); err != nil {
		return err
	}
	src := sf.path
	c.hooks.afterCopy(src)
	ft.noteSource(src, dst, sst, snap)
	if c.opts.NoPreserve {
		return nil
	}
	left, err := file.Stat()
	if err != nil {
		return err
	}
	c.remember(placed{dst: dst, ino: file.Ino(), src: sst, left: left})
	c.hooks.afterSettle(dst)
	return nil
}

// recheckSources lists every source directory a file was copied from once
// more and fails each file whose size, mtime or ctime changed since its
// copy started (or which is gone): the copy may mix old and new data, and
// the tree is not put in place; a rerun copies such a file again and
// keeps the rest. A listing's stat can be older than a stat's (see
// freshStat): an entry that differs is stat'ed before it is called
// changed. Files read from a snapshot are checked by checking the
// snapshot, once (see recheckSnapshot).
func (t *treeCopy) recheckSources(ctx context.Context) {
	ft := t.fresh
	ft.mu.Lock()
	dirs, snaps := ft.sources, ft.fromSnaps
	ft.sources, ft.fromSnaps = map[string][]copiedSource{}, map[*snapshot][]copiedSource{}
	ft.mu.Unlock()
	for snap, files := range snaps {
		t.recheckSnapshot(snap, files)
	}
	for dir, files := range dirs {
		if ctx.Err() != nil {
			return
		}
		entries, err := t.c.fs.ReadDir(dir)
		if err != nil {
			t.record(Report{Src: dir, Dst: ft.final(files[0].dst), Outcome: Failed, Err: fmt.Errorf("list the source again: %w", err)})
			continue
		}
		now := make(map[string]cephfs.Stat, len(entries))
		for _, e := range entries {
			now[e.Name] = e.Stat
		}
		for _, f := range files {
			p := path.Join(dir, f.name)
			if st, ok := now[f.name]; ok && st.Same(f.st) {
				continue
			}
			st, err := t.c.fs.Lstat(p)
			if err == nil && st.Same(f.st) {
				continue
			}
			what := "removed"
			if err == nil {
				what = "now " + sourceRecord(st)
			}
			t.record(Report{Src: p, Dst: f.dst, Outcome: Failed, Size: f.st.Size,
				Err: fmt.Errorf("cephfs:%s: %w (%s, %s); the tree is not put in place, a rerun copies the file again", p, ErrSourceChanged, sourceRecord(f.st), what)})
		}
	}
}

// recheckSnapshot checks, once every file was read, that snap is still
// there: a snapshot cannot come back, so every read before read it (see
// checkSnapshot). Gone, every file copied from it may hold holes where
// its data was: each is failed and removed from the staging tree, so
// that no rerun keeps it.
func (t *treeCopy) recheckSnapshot(snap *snapshot, files []copiedSource) {
	err := t.c.checkSnapshot(snap)
	if err == nil {
		return
	}
	for _, f := range files {
		r := Report{Src: f.name, Dst: f.dst, Outcome: Failed, Size: f.st.Size, Err: fmt.Errorf("copy cephfs:%s -> cephfs:%s: %w", f.name, t.fresh.final(f.dst), err)}
		if uerr := t.c.fs.Unlink(f.dst); uerr != nil && !errors.Is(uerr, fs.ErrNotExist) {
			r.Err = fmt.Errorf("%w; its copy could not be removed from the staging tree: %w", r.Err, uerr)
		}
		t.record(r)
	}
}

// publish puts the complete staging tree in place: one sync of the file
// system (every file's size and metadata, buffered in this client's caps,
// reach the MDS), the rename, then the mark's removal. dst made since the
// copy started is not replaced (a rename onto an empty directory would).
// A hidden target is synced and unmarked, not renamed: its caller moves
// it in.
func (c *Copier) publish(ft *freshTree) error {
	if ft.shared && c.opts.Shard.Worker() {
		// A worker's files reach the MDS; the final pass puts the tree
		// in place.
		if err := c.fs.SyncFS(); err != nil {
			return fmt.Errorf("sync the share copied into cephfs:%s: %w", ft.staging, err)
		}
		return nil
	}
	if err := c.publishTree(ft); err != nil {
		return err
	}
	if ft.shared || ft.resumed {
		// A plain copy may complete a sharded copy's tree, too.
		return c.removeShareLocks(ft)
	}
	return nil
}

func (c *Copier) publishTree(ft *freshTree) error {
	if err := c.fs.SyncFS(); err != nil {
		return fmt.Errorf("sync before putting cephfs:%s in place: %w; it is kept in cephfs:%s", ft.dst, err, ft.staging)
	}
	if ft.hidden {
		if err := ft.unmarkShared(); err != nil {
			return err
		}
		return ft.lock.RemoveXattr(xattrTree)
	}
	if _, err := c.fs.Lstat(ft.dst); !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cephfs:%s was made during the copy; the copy is left in cephfs:%s (not put in place)", ft.dst, ft.staging)
	}
	if err := ft.unmarkShared(); err != nil {
		return err
	}
	if err := c.fs.Rename(ft.staging, ft.dst); err != nil {
		return fmt.Errorf("put cephfs:%s in place: %w; the copy is left in cephfs:%s", ft.dst, err, ft.staging)
	}
	return ft.lock.RemoveXattr(xattrTree)
}

// unmarkShared removes, before the tree is put in place, what only its
// copy needs: its holder's name, and the workers' --shard-by when they
// built it (sharedtree.go). The tree mark goes last, after the rename.
func (ft *freshTree) unmarkShared() error {
	if err := ft.lock.RemoveXattr(xattrOwner); err != nil {
		return err
	}
	if ft.shared || ft.resumed {
		if err := ft.lock.RemoveXattr(xattrShardBy); err != nil && store.ErrnoOf(err) != syscall.ENODATA {
			return err
		}
	}
	return nil
}

// release lets go of the staging tree's lock, and a worker's of its
// share.
func (ft *freshTree) release() {
	if ft == nil {
		return
	}
	if ft.share != nil {
		ft.share.Close()
	}
	if ft.lock != nil {
		ft.lock.Close()
	}
}
