package fscopy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"
	"syscall"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/shard"
	"github.com/radoscp/radoscp/store"
)

// Sharded tree copies. Worker K of N (Options.Shard) walks the whole
// source but copies only the regular files and symlinks of its share
// (shard.Owns on the path relative to the source root; hard-linked
// files by inode, so one worker has every name of a link group). It
// makes the destination directories its files need, as they need them,
// with mkdir's EEXIST taken as done, since every worker may make the same
// one at once; it sets no directory metadata and leaves the target's
// mark (xattrTree) in place. The final pass (Shard.Finish) walks it all
// as an unsharded copy does, makes every directory and gives them their
// metadata, but copies only what is not already in place; it reports as
// findings what no worker copied (Missed), what changed in the source
// after a worker's copy (Changed) and what the destination holds that the
// source does not (Extra, left alone), and exits with an error when it
// found any. It removes the mark once every path is in place (nothing
// failed): until then, a rerun of the pass continues into the same target.
//
// Into a target that does not exist, the workers and the final pass build
// one staging tree, which the final pass puts in place whole
// (sharedtree.go); the above is then said of that tree. Into an existing
// target, every file goes through its own staging file.

// Finding is what the final pass of a sharded copy found of a path.
type Finding string

const (
	// Missed: no worker had copied it (created in the source after the
	// workers' walks, or a worker did not run to its end); the final
	// pass copied it.
	Missed Finding = "missed"
	// Changed: it was in the destination but not as the source is now
	// (changed after a worker copied it); the final pass copied it again.
	Changed Finding = "changed"
	// Extra: in the destination, not in the source (removed or renamed
	// after a worker's copy); left alone.
	Extra Finding = "extra"
)

// shardWalk is a sharded copy's state; nil for an unsharded one, and
// every method takes a nil receiver as that.
type shardWalk struct {
	s    shard.Shard
	root string // the source root: keys are paths relative to it
	dst  string // the destination root
	// made: destination directories a worker has made (or found), with
	// the error if it could not; used by the walk's goroutine only.
	made map[string]error
	mu   sync.Mutex
	// pending: findings of files the final pass is copying, until their
	// report is recorded.
	pending map[string]note
}

type note struct {
	f   Finding
	why string
}

func newShardWalk(s shard.Shard, root, dst string) *shardWalk {
	if !s.On() {
		return nil
	}
	return &shardWalk{s: s, root: path.Clean(root), dst: path.Clean(dst), made: map[string]error{}, pending: map[string]note{}}
}

// rel is p relative to the walk's root, "." for the root itself.
func rel(root, p string) string {
	switch {
	case p == root:
		return "."
	case root == "/":
		return strings.TrimPrefix(p, "/")
	}
	return strings.TrimPrefix(p, root+"/")
}

// shardOf is the worker, of n, whose share the entry at p is: by its
// path, or with --shard-by dir its directory's (shard.Key, shard.Of), or
// for a hard-linked file by its link group (LinkGroup.Shard), so that
// one worker has every name of an inode.
func (w *shardWalk) shardOf(p string, st cephfs.Stat, n int) int {
	if g, ok := GroupOf(st); ok {
		return g.Shard(n)
	}
	return shard.Of(w.s.Key(rel(w.root, p)), n)
}

// owns reports whether this run takes the entry at p: a worker its
// share, the final pass and an unsharded run everything.
func (w *shardWalk) owns(p string, st cephfs.Stat) bool {
	return w == nil || !w.s.Worker() || w.shardOf(p, st, w.s.N) == w.s.K
}

func (w *shardWalk) worker() bool { return w != nil && w.s.Worker() }
func (w *shardWalk) finish() bool { return w != nil && w.s.Finish }

// checkShard refuses a sharded request that cannot be one before
// anything is written: only directory trees are split, and the final
// pass continues a target the workers marked.
func (c *Copier) checkShard(src, dst string, dir bool) error {
	s := c.opts.Shard
	if !s.On() {
		return nil
	}
	if !dir {
		return fmt.Errorf("%w: --shard splits a directory tree; cephfs:%s is not a directory", ErrUsage, src)
	}
	if !s.Finish {
		return nil
	}
	// The workers' staging tree (sharedtree.go), or the target itself
	// when an older radoscp's workers copied into it.
	if !c.marked(src, stagingPath(dst, 0)) && !c.marked(src, dst) {
		return fmt.Errorf("%w: the final pass continues a sharded copy of cephfs:%s, and cephfs:%s carries no mark of one "+
			"(the copy was finished already, or no worker has run); nothing was written", ErrUsage, src, dst)
	}
	return nil
}

// skip is the sharded walk's step for a non-directory entry: it reports
// whether the walk leaves it (another worker's; or, in the final pass,
// already in place), after recording what it found.
func (t *treeCopy) skip(src, dst string, st cephfs.Stat) bool {
	w := t.sh
	switch {
	case w.worker():
		if st.IsRegular() || st.IsSymlink() {
			t.c.repMu.Lock()
			t.sum.Seen++
			t.c.repMu.Unlock()
		}
		if !w.owns(src, st) {
			return true
		}
		if t.c.opts.DryRun {
			return false
		}
		if err := t.ensureDir(path.Dir(dst)); err != nil {
			t.record(Report{Src: src, Dst: dst, Outcome: Failed, Err: err})
			return true
		}
	case w.finish():
		f, same, err := t.c.inPlace(src, dst, st)
		switch {
		case err != nil:
			t.record(Report{Src: src, Dst: dst, Outcome: Failed, Err: err})
			return true
		case same:
			t.record(Report{Src: src, Dst: dst, Outcome: Unchanged, Reason: "in place: made by a worker"})
			return true
		case f != "":
			w.mu.Lock()
			w.pending[src] = note{f, w.why(f, src, st)}
			w.mu.Unlock()
		}
	}
	return false
}

// annotate gives r the finding the final pass made of its path, if the
// pass had to copy it.
func (w *shardWalk) annotate(r *Report) {
	if !w.finish() {
		return
	}
	w.mu.Lock()
	n, ok := w.pending[r.Src]
	delete(w.pending, r.Src)
	w.mu.Unlock()
	// A file found the same by the copy's own check is unchanged; a
	// hard link already in place is reported as a hard link.
	copied := r.Outcome == Copied || r.Outcome == Linked || r.Outcome == Failed || (r.Outcome == HardLink && n.f == Missed)
	if ok && copied {
		r.Finding = n.f
		r.Reason = strings.TrimPrefix(r.Reason+"; "+n.why, "; ")
	}
}

// why explains a finding; with the number of workers known (finish/N),
// it names the worker whose share the path was.
func (w *shardWalk) why(f Finding, p string, st cephfs.Stat) string {
	owner := ""
	if w.s.N > 0 {
		owner = fmt.Sprintf(" (shard %d/%d's)", w.shardOf(p, st, w.s.N), w.s.N)
	}
	if f == Missed {
		return "no worker had copied it" + owner + ": created in the source after the workers' walks, or its worker did not finish"
	}
	return "the destination was not the source as it is now" + owner + ": the source changed after a worker copied it"
}

// inPlace is the final pass's look at the destination of a file or
// symlink: Missed when it does not exist. A symlink with the source's
// target (and mtime) is in place; another one Changed. A regular file
// that exists is Changed if the copy's own check (sameAtDestination:
// size, mtime, mode, owner, xattrs) does not find it the same, and
// then copied again.
func (c *Copier) inPlace(src, dst string, st cephfs.Stat) (Finding, bool, error) {
	if !st.IsRegular() && !st.IsSymlink() {
		return "", false, nil
	}
	have, err := c.fs.Lstat(dst)
	if errors.Is(err, fs.ErrNotExist) {
		return Missed, false, nil
	}
	if err != nil {
		return "", false, err
	}
	if st.IsRegular() || !have.IsSymlink() {
		return Changed, false, nil
	}
	a, err := c.fs.Readlink(src)
	if err != nil {
		return "", false, err
	}
	b, err := c.fs.Readlink(dst)
	if err != nil {
		return "", false, err
	}
	if a == b && (c.opts.NoPreserve || have.Mtime.Equal(st.Mtime)) {
		return "", true, nil
	}
	return Changed, false, nil
}

// ensureDir makes the destination directory dir, and those above it, if
// this worker has not made them yet. Another worker making one at the
// same time is no error; something else at its path is.
func (t *treeCopy) ensureDir(dir string) error {
	w := t.sh
	if err, ok := w.made[dir]; ok {
		return err
	}
	src := path.Join(w.root, rel(w.dst, dir))
	var err error
	if dir != w.dst { // the target itself is made by markTarget
		err = t.ensureDir(path.Dir(dir))
	}
	if err == nil && dir != w.dst {
		err = t.makeDir(dir, true) // other workers make the same ones
	}
	if err == nil && !t.c.opts.NoPreserve {
		// Every worker sets the layout before its own first file in
		// the directory: it cannot know whether the one that made it
		// has yet (setDirLayout leaves a layout already there alone).
		var attrs dirAttrs
		if attrs, err = t.c.readDirAttrs(src); err == nil {
			err = t.c.setDirLayout(dir, attrs)
		}
	}
	if err == nil {
		t.record(Report{Src: src, Dst: dir, Outcome: Dir})
		if t.fresh != nil {
			t.c.madeDir(dir) // in the workers' staging tree: no quota yet
		}
	}
	if err != nil {
		err = fmt.Errorf("make directory cephfs:%s: %w", dir, err)
	}
	w.made[dir] = err
	return err
}

// extras is the final pass's check of a directory: entries of dst that
// src does not have (removed or renamed in the source after a worker
// copied them) are reported and left alone; with Delete, the deletion
// pass removes them instead (delete.go).
func (t *treeCopy) extras(src, dst string, entries []cephfs.Entry) {
	if !t.sh.finish() || t.c.opts.Delete {
		return
	}
	have, err := t.c.fs.ReadDir(dst)
	if err != nil {
		t.record(Report{Src: src, Dst: dst, Outcome: Failed, Err: err})
		return
	}
	in := map[string]bool{}
	for _, e := range entries {
		in[e.Name] = true
	}
	for _, e := range have {
		if in[e.Name] || t.c.isTargetStaging(dst, e) {
			continue
		}
		why := "in the destination, not in the source (removed or renamed there after a worker copied it); left alone"
		if t.c.isStaging(dst, e) {
			why = "a staging file whose source is gone (a worker was interrupted copying it); left alone"
		}
		t.record(Report{Src: path.Join(src, e.Name), Dst: path.Join(dst, e.Name), Outcome: Skipped, Finding: Extra, Reason: why})
	}
}

// ErrFindings is the final pass's error when it found the source changed
// during a sharded run; every path of the source is in place all the same.
var ErrFindings = errors.New("the source changed during the sharded run")

// findings is the final pass's error: what it found, if anything.
func (s Summary) findings() error {
	if s.Missed+s.Changed+s.Extra == 0 {
		return nil
	}
	return fmt.Errorf("%w: the final pass found %d paths no worker had copied and %d "+
		"changed after their copy (both copied now), and %d in the destination that are not in the source (left alone)",
		ErrFindings, s.Missed, s.Changed, s.Extra)
}

// targetStagingPrefix starts the name of the directory a tree copy's
// target is made as, marked, before it is renamed to its name: so the
// target never exists without its mark, which every worker of a sharded
// copy, starting at once, relies on to continue into it.
const targetStagingPrefix = StagingPrefix + "target."

// isTargetStaging reports whether entry e of dir is such a directory,
// carrying its mark (one made but not yet marked is reported as any
// other entry).
func (c *Copier) isTargetStaging(dir string, e cephfs.Entry) bool {
	if !e.Stat.IsDir() || !strings.HasPrefix(e.Name, targetStagingPrefix) {
		return false
	}
	_, err := c.fs.GetXattr(path.Join(dir, e.Name), xattrTree)
	return err == nil
}

// mkdirMarked makes directory dst carrying the mark of a copy of src,
// atomically: made under a name of its own, marked, then renamed to dst.
// fs.ErrExist means dst appeared meanwhile (another run made it). The
// rename replaces an empty directory made at dst in the moment since
// the caller found none: another worker's, marked alike.
func (c *Copier) mkdirMarked(src, dst string) error {
	var b [8]byte
	_, _ = rand.Read(b[:])
	dir, base := path.Split(dst)
	name := targetStagingPrefix + hex.EncodeToString(b[:]) + "." + base
	if len(name) > 255 {
		name = name[:255]
	}
	tmp := dir + name
	if err := c.fs.Mkdir(tmp, 0o700); err != nil {
		return err
	}
	err := c.fs.SetXattr(tmp, xattrTree, []byte(src))
	if err == nil {
		err = c.fs.Rename(tmp, dst)
	}
	if err != nil {
		_ = c.fs.Rmdir(tmp)
		if e := store.ErrnoOf(err); e == syscall.ENOTEMPTY || e == syscall.EEXIST || e == syscall.EISDIR {
			return fmt.Errorf("%w: cephfs:%s was made meanwhile", fs.ErrExist, dst)
		}
	}
	return err
}

// skipMigrate is the sharded walk's step for a regular file to migrate:
// it reports whether the walk leaves it to another worker. The final
// pass takes every file, and what it has to move, no worker moved.
func (t *treeCopy) skipMigrate(p string, st cephfs.Stat) bool {
	w := t.sh
	switch {
	case w.worker():
		t.c.repMu.Lock()
		t.sum.Seen++
		t.c.repMu.Unlock()
		return !w.owns(p, st)
	case w.finish():
		w.mu.Lock()
		w.pending[p] = note{Missed, w.why(Missed, p, st)}
		w.mu.Unlock()
	}
	return false
}

// verifyOthers is a sharded verification's walk through a path of
// another worker's share: nothing of it is compared, but a directory's
// entries are walked for those of this share. A directory missing from
// the destination is its owner's to report, and nothing under it can be
// compared.
func (c *Copier) verifyOthers(ctx context.Context, w *shardWalk, src, dst string, sst cephfs.Stat, report func(Verification)) {
	if !sst.IsDir() {
		return
	}
	if have, err := c.fs.Lstat(dst); err != nil || !have.IsDir() {
		return
	}
	entries, err := c.fs.ReadDir(src)
	if err != nil {
		return // the owner of src reports it
	}
	for _, e := range entries {
		if !c.isStaging(src, e) {
			c.verifyPath(ctx, w, path.Join(src, e.Name), path.Join(dst, e.Name), e.Stat, true, report)
		}
	}
}
