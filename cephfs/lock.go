package cephfs

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/store"
)

// ErrLocked is a file another client (or another open file of this one)
// holds an exclusive lock on.
var ErrLocked = errors.New("locked by another copy")

// TryLock takes an exclusive advisory lock on the file through the MDS
// (ceph_flock, LOCK_EX|LOCK_NB), without waiting. It gives ErrLocked when
// another owner holds one. The lock lasts until Close, or until the MDS
// gives up the session of a client that died (session_timeout, or an
// eviction), so a dead copy's lock is taken over by the next run.
func (fl *File) TryLock() error {
	return fl.tryFlock(gocephfs.LockEX, "lock")
}

// TryLockShared takes a shared advisory lock on the file through the MDS
// (LOCK_SH|LOCK_NB), without waiting: any number of owners hold one
// together, and none while another holds TryLock's exclusive lock
// (ErrLocked, either way). It lasts as TryLock's does.
func (fl *File) TryLockShared() error {
	return fl.tryFlock(gocephfs.LockSH, "lock shared")
}

func (fl *File) tryFlock(how gocephfs.LockOp, what string) error {
	var b [8]byte
	_, _ = rand.Read(b[:])
	owner := binary.LittleEndian.Uint64(b[:])
	err := pathError(what, fl.path, fl.f.Flock(how|gocephfs.LockNB, owner))
	if errno := store.ErrnoOf(err); errno == syscall.EWOULDBLOCK {
		return fmt.Errorf("cephfs:%s: %w: %w", fl.path, ErrLocked, err)
	}
	return err
}
