package rados_test

import (
	"errors"
	"testing"
	"time"

	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// TestUnlockAndRemove: on the real cluster, a lock object is removed with
// its lock by comparing the lock's state with the one read when the lock
// was taken or last renewed, without reading it again; when the state
// changed since (renewed behind that read's back), it is read again and
// the object still removed; when another client took the lock over, the
// object and that client's lock stay.
func TestUnlockAndRemove(t *testing.T) {
	const name = "radoscp.copy"
	a := openPool(t, connect(t, rados.ConnConfig{}), "radoscp-b", "")
	take := func(t *testing.T, p *rados.Pool, oid, cookie string) {
		t.Helper()
		res, err := p.LockExclusive(oid, name, cookie, "test", 30*time.Second, false)
		if err != nil || res != store.Locked {
			t.Fatalf("lock %s: %v, %v", cookie, res, err)
		}
	}
	newObject := func(t *testing.T) string {
		oid := test.UniqueName(t)
		if err := a.Create(oid, nil); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Remove(oid) })
		return oid
	}
	gone := func(t *testing.T, oid string) {
		t.Helper()
		if _, err := a.Stat(oid); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s after the release: %v, want it removed", oid, err)
		}
	}
	t.Run("taken", func(t *testing.T) {
		oid := newObject(t)
		take(t, a, oid, "c1")
		before := rados.LockStateRereads()
		if err := a.UnlockAndRemove(oid, name, "c1"); err != nil {
			t.Fatal(err)
		}
		gone(t, oid)
		if n := rados.LockStateRereads() - before; n != 0 {
			t.Errorf("the release read the lock's state %d more times", n)
		}
	})
	t.Run("renewed", func(t *testing.T) {
		oid := newObject(t)
		take(t, a, oid, "c2")
		if res, err := a.LockExclusive(oid, name, "c2", "test", 30*time.Second, true); err != nil || res != store.Locked {
			t.Fatalf("renew: %v, %v", res, err)
		}
		before := rados.LockStateRereads()
		if err := a.UnlockAndRemove(oid, name, "c2"); err != nil {
			t.Fatal(err)
		}
		gone(t, oid)
		if n := rados.LockStateRereads() - before; n != 0 {
			t.Errorf("the release read the lock's state %d more times", n)
		}
	})
	t.Run("renewed-behind-its-back", func(t *testing.T) {
		oid := newObject(t)
		take(t, a, oid, "c3")
		if !a.AwaitLockRead(oid, name, "c3") {
			t.Fatal("no background read of the lock's state")
		}
		// Renewed through go-ceph directly: the state changes (a new
		// expiry) and no background read follows.
		renew := byte(1)
		if ret, err := a.IOContext().LockExclusive(oid, name, "c3", "test", 30*time.Second, &renew); err != nil || ret != 0 {
			t.Fatalf("renew: %d, %v", ret, err)
		}
		before := rados.LockStateRereads()
		if err := a.UnlockAndRemove(oid, name, "c3"); err != nil {
			t.Fatal(err)
		}
		gone(t, oid)
		if n := rados.LockStateRereads() - before; n != 1 {
			t.Errorf("the release read the lock's state %d more times, want 1: the state compared was not stale", n)
		}
	})
	t.Run("taken-over", func(t *testing.T) {
		oid := newObject(t)
		take(t, a, oid, "c4")
		b := openPool(t, connect(t, rados.ConnConfig{}), "radoscp-b", "")
		ls, err := b.Lockers(oid, name)
		if err != nil || len(ls) != 1 {
			t.Fatalf("lockers %v, %v", ls, err)
		}
		if ok, err := b.BreakLock(oid, name, ls[0]); !ok || err != nil {
			t.Fatalf("break: %v, %v", ok, err)
		}
		take(t, b, oid, "rival")
		err = a.UnlockAndRemove(oid, name, "c4")
		if !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("release of a lock taken over: %v, want ErrNotFound", err)
		}
		if _, err := a.Stat(oid); err != nil {
			t.Fatalf("the object of a lock taken over: %v", err)
		}
		if ls, err := a.Lockers(oid, name); err != nil || len(ls) != 1 || ls[0].Cookie != "rival" {
			t.Errorf("lockers after the release %v, %v; want the rival's", ls, err)
		}
	})
}
