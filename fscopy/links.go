package fscopy

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"path"
	"sync"

	"github.com/radoscp/radoscp/cephfs"
)

// Hard links. A tree copy keeps them: the first path of an inode with
// more than one link is copied as a file, and every later path of the same
// inode in the tree is made a hard link to that copy, so the data is copied
// once. "First" is in the walk's order, which is deterministic (directories
// are read sorted by name, depth first), so a rerun of the same tree picks
// the same path. The tracker holds one entry per inode with nlink > 1 that
// the walk met, for the whole copy: memory follows the files with several
// links, not the tree. (It does not drop an entry once as many links as
// the inode's nlink were met: a directory listing's nlink can be older
// than the others', and a later path of the inode would then be copied
// as a file of its own.)
//
// Rule for splitting a tree across workers: all paths of one inode must be
// handled by one worker, whatever their names. A worker that splits by a
// hash of the relative path uses LinkGroup.Shard for regular files with
// nlink > 1 instead (GroupOf says which files those are).

// LinkGroup identifies the inode that a set of hard links share: its
// number and, for a snapshot's file, the snapshot's id.
type LinkGroup struct {
	Ino, Snap uint64
}

// GroupOf gives the link group of a regular file with more than one
// link; ok is false for every other inode.
func GroupOf(st cephfs.Stat) (g LinkGroup, ok bool) {
	if !st.IsRegular() || st.Nlink < 2 {
		return LinkGroup{}, false
	}
	return LinkGroup{Ino: st.Ino, Snap: st.Snap}, true
}

// Shard is the worker, of n (n >= 1), that copies every path of the group:
// an FNV-1a hash of the inode number and snapshot id, modulo n. It
// depends on nothing but the inode, so every worker computes the same.
func (g LinkGroup) Shard(n int) int {
	h := fnv.New64a()
	var b [16]byte
	for i := 0; i < 8; i++ {
		b[i], b[8+i] = byte(g.Ino>>(8*i)), byte(g.Snap>>(8*i))
	}
	h.Write(b[:])
	return int(h.Sum64() % uint64(max(n, 1)))
}

// linkLeader is the first path of a link group in this copy: its
// destination, and its outcome once known.
type linkLeader struct {
	dst  string
	done chan struct{}
	ok   bool // the leader's destination is in place (copied, or kept by no-clobber)
}

// links tracks the link groups of one tree copy.
type links struct {
	mu     sync.Mutex
	groups map[LinkGroup]*linkLeader
}

// join registers dst, a path of group g. It returns the
// group's leader and whether dst is it (then the caller copies the file
// and calls leader.finish).
func (l *links) join(g LinkGroup, dst string) (leader *linkLeader, first bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.groups == nil {
		l.groups = map[LinkGroup]*linkLeader{}
	}
	leader = l.groups[g]
	first = leader == nil
	if first {
		leader = &linkLeader{dst: dst, done: make(chan struct{})}
		l.groups[g] = leader
	}
	return leader, first
}

// finish records the leader's outcome and wakes the links waiting for it.
func (ld *linkLeader) finish(ok bool) {
	ld.ok = ok
	close(ld.done)
}

// hardLink makes dst a hard link to the leader's destination once the
// leader is copied. A dst that already is that file (a rerun) is left
// as it is; any other dst is replaced atomically, through a link at a
// staging name and a rename.
func (c *Copier) hardLink(ctx context.Context, src, dst string, leader *linkLeader, placed map[string]bool) Report {
	r := Report{Src: src, Dst: dst, Outcome: HardLink, Reason: "hard link to cephfs:" + leader.dst}
	select {
	case <-leader.done:
	case <-ctx.Done():
		r.Outcome, r.Err = Failed, ctx.Err()
		return r
	}
	if c.opts.DryRun && leader.ok {
		r.DryRun, r.Reason = true, "would be a hard link to cephfs:"+leader.dst
		return r
	}
	if !leader.ok {
		r.Outcome, r.Err = Failed, fmt.Errorf("hard link cephfs:%s -> cephfs:%s: the copy of the file it links to failed", dst, leader.dst)
		return r
	}
	if c.opts.DryRun {
		r.DryRun = true
		return r
	}
	want, err := c.fs.Lstat(leader.dst)
	if err != nil {
		r.Outcome, r.Err = Failed, err
		return r
	}
	have, err := c.fs.Lstat(dst)
	switch {
	case err == nil && have.Ino == want.Ino:
		r.Reason += " (already linked)"
		return r
	case err == nil && c.opts.NoClobber:
		r.Outcome, r.Reason = Skipped, "exists; no-clobber leaves it alone"
		return r
	case err == nil && have.IsDir():
		r.Outcome, r.Err = Failed, fmt.Errorf("cephfs:%s exists and is a directory", dst)
		return r
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		r.Outcome, r.Err = Failed, err
		return r
	}
	if errors.Is(err, fs.ErrNotExist) {
		// No staging name needed: link(2) fails if dst appeared meanwhile.
		err = c.fs.Link(leader.dst, dst)
		switch {
		case err == nil:
			return r
		case errors.Is(err, fs.ErrExist) && c.opts.NoClobber:
			r.Outcome, r.Reason = Skipped, "created during the copy; no-clobber leaves it alone"
			return r
		case !errors.Is(err, fs.ErrExist):
			r.Outcome, r.Err = Failed, err
			return r
		}
	}
	if err := c.replaceByLink(leader.dst, dst, placed); err != nil {
		r.Outcome, r.Err = Failed, err
	}
	return r
}

// replaceByLink replaces dst with a hard link to target atomically: a link
// at the first free link staging name (never one that exists: whatever is
// there is left alone; nor one the tree places, see openStaging), renamed
// onto dst.
func (c *Copier) replaceByLink(target, dst string, placed map[string]bool) error {
	dir, base := path.Split(dst)
	for k := range stagingNames {
		if placed[stagingName(base, k, true)] {
			continue
		}
		staging := dir + stagingName(base, k, true)
		err := c.fs.Link(target, staging)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		if err := c.fs.Rename(staging, dst); err != nil {
			_ = c.fs.Unlink(staging)
			return err
		}
		return nil
	}
	return fmt.Errorf("no staging name free for the hard link cephfs:%s: %s and the %d names after it all exist (radoscp leaves them alone); nothing was changed",
		dst, dir+stagingName(base, 0, true), stagingNames-1)
}

// linkOf is the hard-link step of a tree copy for the regular file src:
// for the first path of a link group it returns the group's leader, which
// the caller finishes after copying; for a later path it starts linking
// it to the leader's copy and returns follow.
//
// st is a fresh stat (treeCopy.freshStat), not the listing's: a listing's
// link count can be out of date (seen on Ceph 16.2: right after another
// client made the links, a first readdir of the directory gave the file
// nlink 1 while a stat gave 3), and a link taken for a file of its own
// would be copied twice.
func (t *treeCopy) linkOf(ctx context.Context, src, dst string, st cephfs.Stat, placed map[string]bool) (leader *linkLeader, follow bool) {
	g, ok := GroupOf(st)
	if !ok {
		return nil, false
	}
	ld, first := t.links.join(g, dst)
	if first {
		return ld, false
	}
	t.g.Go(func() error {
		t.record(t.c.hardLink(ctx, src, dst, ld, placed))
		return nil
	})
	return nil, true
}
