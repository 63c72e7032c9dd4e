package fscopy

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/store"
)

// A sharded copy into a target it creates. The N workers build one
// staging tree together, .radoscp.DST, as an unsharded copy into a new
// target builds its own (freshtree.go): every file is created under its
// final name, with no staging name, lock, rename or settling of its own,
// and its metadata travels in cap flushes; each worker syncs the file
// system once, at its end. DST does not exist until the final pass has
// walked the tree, copied what no worker did, and renamed it into place.
//
// Locks, all flocks through the MDS (dropped with a dead client's
// session, so a rerun takes over):
//   - the staging tree's directory: each worker holds a shared lock, the
//     final pass (and an unsharded copy of the same target) an exclusive
//     one, so the final pass is refused while any worker runs;
//   - share K's lock file beside the tree, .radoscp-shardK.DST: its worker
//     holds it exclusively, so a second run of the same share at once is
//     refused before writing anything; that it exists tells a rerun that
//     an earlier run of its share may have left files to check;
//   - .radoscp-shard.DST, held only while a worker makes or finds the
//     tree: making it renames a marked directory onto its name, and a
//     rename replaces an empty directory, so two workers making it at
//     once could each lock a tree of its own.
// Each lock file carries xattrShare (the staging tree's path) from the
// moment it has its name: it is made as a marked temporary file and
// linked there. A name held by anything else refuses the copy before it
// makes anything. The final pass removes the lock files once the tree is
// in place.

// xattrShare marks a sharded copy's lock file, with the path of the
// staging tree it locks.
const xattrShare = "user.radoscp.share"

// makingLock is the k of the lock held while the tree is made or found.
const makingLock = -1

// shareLockWait is how long a worker waits for another to make or find
// the tree (a few MDS round trips each).
const shareLockWait = time.Minute

// shareLockPath is, beside the sharded copy's target dst, the lock file
// of share k, or with makingLock the one held while the tree is made.
func shareLockPath(dst string, k int) string {
	dir, base := path.Split(dst)
	tag := stagingStart + "-shard"
	if k >= 0 {
		tag += strconv.Itoa(k)
	}
	name := tag + "." + base
	if len(name) > 255 {
		sum := sha256.Sum256([]byte(base))
		name = tag + "." + hex.EncodeToString(sum[:16])
	}
	return dir + name
}

// sharedTarget is freshTarget for a sharded copy. A worker makes the
// workers' staging tree or finds it, and locks it shared; the final pass
// takes over the tree the workers built (nil, and no error, when there
// is none: the workers of an older radoscp copied into DST itself). A
// worker into a DST that exists copies into it, with per-file staging,
// as before (nil).
func (c *Copier) sharedTarget(src, dst string) (*freshTree, error) {
	s := c.opts.Shard
	hidden := strings.HasPrefix(path.Base(dst), stagingStart)
	ft := &freshTree{dst: dst, staging: stagingPath(dst, 0), hidden: hidden, shared: true,
		sources: map[string][]copiedSource{}, fromSnaps: map[*snapshot][]copiedSource{}}
	if hidden {
		ft.staging = dst
	}
	if err := c.checkShareLocks(ft); err != nil {
		return nil, err
	}
	if s.Finish {
		if !c.ownMarked(src, ft.staging) {
			return nil, nil
		}
		ft.resumed = true
		if err := c.lockStaging(ft, false); err != nil {
			return nil, err
		}
		return ft, nil
	}
	if !hidden {
		if _, err := c.fs.Lstat(dst); !errors.Is(err, fs.ErrNotExist) {
			return nil, nil // there (or unknown: the per-file path reports it)
		}
	}
	if over, err := c.quotasOver(path.Dir(dst)); err != nil || len(over) > 0 {
		return nil, nil // see freshTarget
	}
	making, err := c.takeShareLock(ft, shareLockPath(dst, makingLock), shareLockWait)
	if err != nil {
		return nil, err
	}
	defer making.Close()
	st, err := c.fs.Lstat(ft.staging)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !hidden:
		if _, err := c.fs.Lstat(dst); !errors.Is(err, fs.ErrNotExist) {
			return nil, nil // put in place by a final pass meanwhile
		}
		err = c.mkdirMarked(src, ft.staging)
	case errors.Is(err, fs.ErrNotExist):
		err = c.mkdirMarked(src, ft.staging)
	case err == nil && st.IsDir() && c.ownMarked(src, ft.staging):
	case err == nil && hidden:
		return nil, nil // a clone's staging directory, made unmarked: see freshTarget
	case err == nil:
		err = fmt.Errorf("%w: cephfs:%s, where the sharded copy of cephfs:%s to cephfs:%s is built, is taken by something that is not a copy of it (radoscp leaves it alone); nothing was changed",
			ErrUsage, ft.staging, src, dst)
	}
	if err == nil {
		err = c.checkShardBy(ft)
	}
	if err != nil {
		return nil, err
	}
	if err := c.lockStaging(ft, true); err != nil {
		return nil, err
	}
	share := shareLockPath(dst, s.K)
	_, err = c.fs.Lstat(share)
	ft.resumed = err == nil // an earlier run of this share may have left files
	if ft.share, err = c.takeShareLock(ft, share, 0); err != nil {
		ft.release()
		return nil, err
	}
	// Named on the tree only now: a run refused its share writes nothing.
	if err := recordOwner(ft.lock); err != nil {
		ft.release()
		return nil, err
	}
	return ft, nil
}

// xattrShardBy records on the workers' staging tree how they split it
// (shard.Shard.By: path or dir), set by the first worker.
const xattrShardBy = "user.radoscp.shard-by"

// checkShardBy refuses a worker whose --shard-by differs from the one the
// tree records (workers splitting one tree two ways would each copy some
// files another copies at once), or records it when the tree has none.
// The caller holds the making lock, so no other worker reads or records
// it meanwhile.
func (c *Copier) checkShardBy(ft *freshTree) error {
	by := c.opts.Shard.By()
	have, err := c.fs.GetXattr(ft.staging, xattrShardBy)
	switch {
	case store.ErrnoOf(err) == syscall.ENODATA:
		return c.fs.SetXattr(ft.staging, xattrShardBy, []byte(by))
	case err != nil:
		return err
	case string(have) != by:
		return fmt.Errorf("%w: --shard-by %s: the workers of this copy split it by %s (recorded on cephfs:%s); "+
			"every worker of one copy must give the same; nothing was changed", ErrUsage, by, have, ft.staging)
	}
	return nil
}

// lockStaging opens ft's staging tree and locks it, shared (a worker) or
// exclusively (named then as its holder), checking that the directory
// locked is the one at the name.
func (c *Copier) lockStaging(ft *freshTree, shared bool) error {
	var err error
	if ft.lock, err = c.fs.OpenDir(ft.staging); err != nil {
		return err
	}
	if shared {
		err = ft.lock.TryLockShared()
	} else {
		err = ft.lock.TryLock()
	}
	if err != nil {
		defer ft.release()
		owner := ownerOf(ft.lock, "owner not recorded yet")
		if shared {
			return fmt.Errorf("%w: the sharded copy to cephfs:%s is being finished (or copied unsharded) by %s; nothing was changed: %w", ErrBusy, ft.dst, owner, err)
		}
		return fmt.Errorf("%w: a worker of the sharded copy to cephfs:%s is still running (%s, among others perhaps); nothing was changed: %w", ErrBusy, ft.dst, owner, err)
	}
	if st, err := c.fs.Lstat(ft.staging); err != nil || st.Ino != ft.lock.Ino() {
		ft.release()
		return fmt.Errorf("%w: another run put cephfs:%s in place meanwhile; nothing was changed", ErrBusy, ft.dst)
	}
	if shared {
		return nil // the worker names itself once its share is locked
	}
	if err := recordOwner(ft.lock); err != nil {
		ft.release()
		return err
	}
	return nil
}

// checkShareLocks refuses, before anything is made, a sharded copy whose
// lock files' names hold something that is not a lock file of this copy.
func (c *Copier) checkShareLocks(ft *freshTree) error {
	names := []string{shareLockPath(ft.dst, makingLock)}
	if s := c.opts.Shard; s.Worker() {
		names = append(names, shareLockPath(ft.dst, s.K))
	}
	for _, p := range names {
		if err := c.checkShareLock(ft, p); err != nil {
			return err
		}
	}
	return nil
}

// checkShareLock checks that p, a lock file's name, is free or holds a
// lock file of ft's tree.
func (c *Copier) checkShareLock(ft *freshTree, p string) error {
	st, err := c.fs.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if v, xerr := c.fs.GetXattr(p, xattrShare); !st.IsRegular() || xerr != nil || string(v) != ft.staging {
		return fmt.Errorf("%w: cephfs:%s, a name the sharded copy to cephfs:%s locks its workers with, is taken by something that is not its lock file (radoscp leaves it alone); nothing was changed",
			ErrUsage, p, ft.dst)
	}
	return nil
}

// takeShareLock opens the lock file p, making it marked if absent, and
// locks it exclusively, trying again for up to wait while another run
// holds it.
func (c *Copier) takeShareLock(ft *freshTree, p string, wait time.Duration) (*cephfs.File, error) {
	deadline := time.Now().Add(wait)
	for {
		f, err := c.fs.OpenWriteNoFollow(p)
		if errors.Is(err, fs.ErrNotExist) {
			if err := c.makeShareLock(ft, p); err != nil && !errors.Is(err, fs.ErrExist) {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := c.checkShareLock(ft, p); err != nil {
			f.Close()
			return nil, err
		}
		err = f.TryLock()
		if err == nil {
			if err := recordOwner(f); err != nil {
				f.Close()
				return nil, err
			}
			return f, nil
		}
		owner := ownerOf(f, "owner not recorded yet")
		f.Close()
		if !errors.Is(err, cephfs.ErrLocked) {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w: cephfs:%s is held by another run of the sharded copy to cephfs:%s (%s); nothing was changed: %w", ErrBusy, p, ft.dst, owner, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// makeShareLock makes the lock file p, marked from the moment it has its
// name: a marked temporary file, linked to p. fs.ErrExist means another
// run made it first.
func (c *Copier) makeShareLock(ft *freshTree, p string) error {
	var b [8]byte
	_, _ = rand.Read(b[:])
	tmp := path.Join(path.Dir(p), targetStagingPrefix+"lock."+hex.EncodeToString(b[:]))
	f, err := c.fs.CreateExclusive(tmp, 0o600)
	if err != nil {
		return err
	}
	err = f.SetXattr(xattrShare, []byte(ft.staging))
	f.Close()
	if err == nil {
		err = c.fs.Link(tmp, p)
	}
	if uerr := c.fs.Unlink(tmp); err == nil {
		err = uerr
	}
	return err
}

// removeShareLocks removes the lock files of ft's tree, now in place:
// those of the N shares when the final pass knows N, else every one its
// directory lists (an unsharded copy that completed the workers' tree
// knows no N).
func (c *Copier) removeShareLocks(ft *freshTree) error {
	names := []string{shareLockPath(ft.dst, makingLock)}
	if _, err := c.fs.Lstat(names[0]); errors.Is(err, fs.ErrNotExist) {
		return nil // every worker makes it first: no worker ran
	}
	if n := c.opts.Shard.N; n > 0 {
		for k := range n {
			names = append(names, shareLockPath(ft.dst, k))
		}
	} else {
		dir := path.Dir(ft.dst)
		entries, err := c.fs.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("list cephfs:%s for the sharded copy's lock files: %w", dir, err)
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name, stagingStart+"-shard") && e.Name != path.Base(names[0]) {
				names = append(names, path.Join(dir, e.Name))
			}
		}
	}
	var errs []error
	// The first name last, and only once the others are gone: while it
	// is there, a later run looks for them.
	for _, p := range append(names[1:], names[0]) {
		if p == names[0] && len(errs) > 0 {
			break
		}
		if v, err := c.fs.GetXattr(p, xattrShare); err != nil || string(v) != ft.staging {
			continue // gone, or not this copy's
		}
		if err := c.fs.Unlink(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove the sharded copy's lock file: %w", err))
		}
	}
	return errors.Join(errs...)
}
