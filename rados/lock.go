package rados

import (
	"syscall"
	"time"

	"github.com/radoscp/radoscp/store"
)

/*
#include <stdlib.h>
#include "radoscp.h"
*/
import "C"

// Advisory locks of Ceph's lock object class (cls_lock): go-ceph's
// rados_lock_* wrappers with errnos kept, and the removal of a lock's own
// object with the lock (UnlockAndRemove).

// lockFlagMayRenew is cls_lock's LOCK_FLAG_MAY_RENEW (librados'
// LIBRADOS_LOCK_FLAG_RENEW): taking a lock this client already holds with
// the same cookie renews its expiration instead of failing with EEXIST.
const lockFlagMayRenew byte = 1

// LockExclusive takes (or with renew, renews) the exclusive lock name on
// oid for duration (rados_lock_exclusive); the OSD drops the lock once it
// expires. Other failures keep their errno (EPERM: no class lock caps).
func (p *Pool) LockExclusive(oid, name, cookie, desc string, duration time.Duration, renew bool) (store.LockResult, error) {
	return p.lock(oid, name, cookie, "", desc, duration, renew, false)
}

// LockShared is LockExclusive for a shared lock with tag
// (rados_lock_shared): shared lockers of one tag coexist.
func (p *Pool) LockShared(oid, name, cookie, tag, desc string, duration time.Duration, renew bool) (store.LockResult, error) {
	return p.lock(oid, name, cookie, tag, desc, duration, renew, true)
}

func (p *Pool) lock(oid, name, cookie, tag, desc string, duration time.Duration, renew, shared bool) (store.LockResult, error) {
	if err := p.enter("lock "+name, oid); err != nil {
		return 0, err
	}
	defer p.conn.leave()
	var flags *byte
	if renew {
		f := lockFlagMayRenew
		flags = &f
	}
	var ret int
	var err error
	if shared {
		ret, err = p.io.LockShared(oid, name, cookie, tag, desc, duration, flags)
	} else {
		ret, err = p.io.LockExclusive(oid, name, cookie, desc, duration, flags)
	}
	switch {
	case err != nil:
		return 0, wrap("lock "+name, p.Ref(oid), err)
	case ret == -int(syscall.EBUSY):
		return store.LockBusy, nil
	case ret == -int(syscall.EEXIST):
		return store.LockExists, nil
	case ret < 0:
		return 0, errnoError("lock "+name, p.Ref(oid), ret)
	}
	if !shared {
		p.readLockStateLater(oid, name, cookie)
	}
	return store.Locked, nil
}

// Lockers lists the holders of lock name on oid (rados_list_lockers);
// expired holders are not listed. A missing object gives ErrNotFound.
func (p *Pool) Lockers(oid, name string) ([]store.Locker, error) {
	if err := p.enter("list lockers "+name, oid); err != nil {
		return nil, err
	}
	defer p.conn.leave()
	info, err := p.io.ListLockers(oid, name)
	if err != nil {
		return nil, wrap("list lockers "+name, p.Ref(oid), err)
	}
	var ls []store.Locker
	for i := 0; i < info.NumLockers && i < len(info.Clients) && i < len(info.Cookies); i++ {
		l := store.Locker{Client: info.Clients[i], Cookie: info.Cookies[i]}
		if i < len(info.Addrs) {
			l.Addr = info.Addrs[i]
		}
		ls = append(ls, l)
	}
	return ls, nil
}

// BreakLock removes holder l of lock name on oid (rados_break_lock). It
// reports false when l no longer held it.
func (p *Pool) BreakLock(oid, name string, l store.Locker) (bool, error) {
	if err := p.enter("break lock "+name, oid); err != nil {
		return false, err
	}
	defer p.conn.leave()
	ret, err := p.io.BreakLock(oid, name, l.Client, l.Cookie)
	if err != nil {
		return false, wrap("break lock "+name, p.Ref(oid), err)
	}
	if ret == -int(syscall.ENOENT) {
		return false, nil
	}
	if ret < 0 {
		return false, errnoError("break lock "+name, p.Ref(oid), ret)
	}
	return true, nil
}

// Unlock releases this client's lock name with cookie on oid
// (rados_unlock); a lock no longer held (expired, broken) is not an error.
func (p *Pool) Unlock(oid, name, cookie string) error {
	if err := p.enter("unlock "+name, oid); err != nil {
		return err
	}
	defer p.conn.leave()
	p.forgetLockRead(oid, name, cookie)
	ret, err := p.io.Unlock(oid, name, cookie)
	if err != nil {
		return wrap("unlock "+name, p.Ref(oid), err)
	}
	if ret < 0 && ret != -int(syscall.ENOENT) {
		return errnoError("unlock "+name, p.Ref(oid), ret)
	}
	return nil
}

// lockXattrPrefix is where cls_lock keeps a lock on its object: the lock's
// state (its type, tag and lockers, each with its cookie) is the xattr
// "lock.NAME", which plain reads and cmpxattr see.
const lockXattrPrefix = "lock."
