package rados

import (
	"bytes"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/radoscp/radoscp/store"
)

/*
#include <stdlib.h>
#include "radoscp.h"
*/
import "C"

// A copy lock's release (UnlockAndRemove) removes the lock's object only
// if the lock's state still names this copy, compared by cmpxattr with
// the state as read. Reading it at release is a round trip of its own, on
// every copy's critical path. So every time this client takes or renews
// an exclusive lock, the state is read in the background, off the copy's
// path, and the release compares with that read: one round trip. A
// renewal or a rival changes the state; the compare then fails and the
// release reads it again, as it would without the earlier read.

// lockStateRereads counts the releases that read the state again: no
// background read, or the state had changed since it.
var lockStateRereads atomic.Int64

// lockKey names one exclusive lock this client holds.
type lockKey struct{ ref, name, cookie string }

// lockRead is a background read of a lock's state.
type lockRead struct {
	done  chan struct{}
	state []byte
	err   error
}

// readLockStateLater starts reading the state of lock name on oid, taken
// or renewed with cookie, and keeps the read for UnlockAndRemove,
// replacing an earlier one.
func (p *Pool) readLockStateLater(oid, name, cookie string) {
	r := &lockRead{done: make(chan struct{})}
	c := p.conn
	c.mu.Lock()
	if c.lockReads == nil {
		c.lockReads = map[lockKey]*lockRead{}
	}
	c.lockReads[lockKey{p.Ref(oid), name, cookie}] = r
	c.mu.Unlock()
	go func() {
		defer close(r.done)
		r.state, r.err = p.Xattr(oid, lockXattrPrefix+name)
	}()
}

// takeLockRead returns (and forgets) the last background read of lock
// name's state on oid, once it has finished; nil if there was none.
func (p *Pool) takeLockRead(oid, name, cookie string) *lockRead {
	c := p.conn
	k := lockKey{p.Ref(oid), name, cookie}
	c.mu.Lock()
	r := c.lockReads[k]
	delete(c.lockReads, k)
	c.mu.Unlock()
	if r != nil {
		<-r.done
	}
	return r
}

// forgetLockRead drops the background read of a lock released otherwise.
func (p *Pool) forgetLockRead(oid, name, cookie string) {
	c := p.conn
	c.mu.Lock()
	delete(c.lockReads, lockKey{p.Ref(oid), name, cookie})
	c.mu.Unlock()
}

// UnlockAndRemove releases this client's exclusive lock name with cookie
// on oid by removing oid, in one op guarded by a cmpxattr on the lock's
// state: only if that state names cookie, so that a lock object is never
// removed under another holder. The state compared is the one read after
// the lock was last taken or renewed (see readLockStateLater), else, or
// if it changed since, one read now.
//
// An unlock and a remove in one op would need the lock class and write in
// one cephx grant (`allow rwx`), which the least-privilege caps (`allow
// rw pool=P, allow pool P class lock`) do not give: the OSD checks a
// compound op against each grant alone. These are plain reads and writes.
// If the lock is no longer held by this client (expired and taken, or
// the object gone), nothing changes and that is reported as ErrNotFound.
func (p *Pool) UnlockAndRemove(oid, name, cookie string) error {
	if r := p.takeLockRead(oid, name, cookie); r != nil && r.err == nil && bytes.Contains(r.state, []byte(cookie)) {
		err := p.removeIfLockState(oid, name, r.state)
		if store.ErrnoOf(err) != syscall.ECANCELED {
			return err
		}
	}
	lockStateRereads.Add(1)
	state, err := p.Xattr(oid, lockXattrPrefix+name)
	if err != nil {
		if store.ErrnoOf(err) == syscall.ENODATA {
			err = &store.Error{Op: "read lock " + name, Object: p.Ref(oid), Errno: syscall.ENOENT}
		}
		return err
	}
	if !bytes.Contains(state, []byte(cookie)) {
		return &store.Error{Op: "unlock and remove", Object: p.Ref(oid), Errno: syscall.ENOENT, Detail: "the lock is no longer this copy's"}
	}
	err = p.removeIfLockState(oid, name, state)
	if store.ErrnoOf(err) == syscall.ECANCELED {
		return &store.Error{Op: "unlock and remove", Object: p.Ref(oid), Errno: syscall.ENOENT, Detail: "the lock changed hands meanwhile"}
	}
	return err
}

// removeIfLockState removes oid if lock name's state on it is state
// (ECANCELED if not).
func (p *Pool) removeIfLockState(oid, name string, state []byte) error {
	if err := p.enter("unlock and remove", oid); err != nil {
		return err
	}
	defer p.conn.leave()
	coid, cattr := C.CString(oid), C.CString(lockXattrPrefix+name)
	defer C.free(unsafe.Pointer(coid))
	defer C.free(unsafe.Pointer(cattr))
	cstate, cn := cBytes(state)
	defer C.free(unsafe.Pointer(cstate))
	ret := C.radoscp_remove_if_xattr(C.rados_ioctx_t(p.io.Pointer()), coid, C.size_t(len(oid)), cattr, cstate, cn)
	return errnoError("unlock and remove", p.Ref(oid), int(ret))
}
