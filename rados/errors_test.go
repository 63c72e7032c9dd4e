package rados

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/radoscp/radoscp/store"
)

func TestErrorMessageAndMatching(t *testing.T) {
	err := fmt.Errorf("object 3: %w", &store.Error{Op: "copy", Object: "a/10000000000.00000003", Target: "b/x.00000003", Errno: syscall.EIO})
	want := "object 3: copy a/10000000000.00000003 -> b/x.00000003: EIO"
	if err.Error() != want {
		t.Fatalf("message = %q, want %q", err.Error(), want)
	}
	if !errors.Is(err, store.ErrIO) || !errors.Is(err, syscall.EIO) {
		t.Fatalf("errors.Is by errno failed for %v", err)
	}
	if errors.Is(err, store.ErrNotFound) {
		t.Fatalf("EIO matched ErrNotFound")
	}
	if got := store.ErrnoOf(err); got != syscall.EIO {
		t.Fatalf("store.ErrnoOf = %v, want EIO", got)
	}
	if got := store.ErrnoOf(errors.New("plain")); got != 0 {
		t.Fatalf("store.ErrnoOf(plain) = %v, want 0", got)
	}
}

func TestErrnoName(t *testing.T) {
	for errno, want := range map[syscall.Errno]string{
		syscall.ENOENT: "ENOENT", syscall.EOPNOTSUPP: "EOPNOTSUPP", syscall.ERANGE: "ERANGE",
		syscall.Errno(4095): "errno 4095",
	} {
		if got := store.ErrnoName(errno); got != want {
			t.Errorf("store.ErrnoName(%d) = %q, want %q", int(errno), got, want)
		}
	}
}

func TestWrapNegativeCode(t *testing.T) {
	if errnoError("stat", "p/o", 0) != nil {
		t.Fatal("return code 0 must be no error")
	}
	err := errnoError("stat", "p/o", -int(syscall.EPERM))
	if !errors.Is(err, store.ErrPermission) || err.Error() != "stat p/o: EPERM" {
		t.Fatalf("got %v", err)
	}
}
