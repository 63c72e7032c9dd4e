package cephfs_test

import (
	"errors"
	"testing"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/test"
)

// Shared locks, from two clients: both hold one at once; an exclusive
// lock is refused while either does, and a shared one while an
// exclusive one is held; closing a file lets its lock go.
func TestTryLockSharedAndExclusive(t *testing.T) {
	a, b := mount(t), mount(t)
	p := "/" + test.UniqueName(t)
	if err := a.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Rmdir(p) })
	open := func(fs *cephfs.FS) *cephfs.File {
		t.Helper()
		f, err := fs.OpenDir(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	sa, sb, ex := open(a), open(b), open(b)
	if err := sa.TryLockShared(); err != nil {
		t.Fatalf("first shared lock: %v", err)
	}
	if err := sb.TryLockShared(); err != nil {
		t.Fatalf("second shared lock, from another client: %v", err)
	}
	if err := ex.TryLock(); !errors.Is(err, cephfs.ErrLocked) {
		t.Fatalf("exclusive lock while two shared are held: %v; want ErrLocked", err)
	}
	sa.Close()
	if err := ex.TryLock(); !errors.Is(err, cephfs.ErrLocked) {
		t.Fatalf("exclusive lock while one shared is held: %v; want ErrLocked", err)
	}
	sb.Close()
	if err := ex.TryLock(); err != nil {
		t.Fatalf("exclusive lock once no shared one is held: %v", err)
	}
	again := open(a)
	if err := again.TryLockShared(); !errors.Is(err, cephfs.ErrLocked) {
		t.Fatalf("shared lock while an exclusive one is held: %v; want ErrLocked", err)
	}
	ex.Close()
	if err := again.TryLockShared(); err != nil {
		t.Fatalf("shared lock once the exclusive one's file is closed: %v", err)
	}
}
