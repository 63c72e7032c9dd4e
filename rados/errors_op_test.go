package rados

import (
	"errors"
	"syscall"
	"testing"

	gorados "github.com/ceph/go-ceph/rados"
	"github.com/radoscp/radoscp/store"
)

// A write op's failure comes as go-ceph's OperationError, which does not
// unwrap to the op's error; its errno must survive anyway (an existing
// striped object's exclusive create is EEXIST, not EIO).
func TestWrapOperationError(t *testing.T) {
	err := ErrnoError("create", "p/o", gorados.OperationError{OpError: gorados.ErrObjectExists})
	if !errors.Is(err, store.ErrExists) || store.ErrnoOf(err) != syscall.EEXIST {
		t.Fatalf("wrap(OperationError{EEXIST}) = %v (errno %d), want EEXIST", err, store.ErrnoOf(err))
	}
	if err := ErrnoError("create", "p/o", gorados.OperationError{}); store.ErrnoOf(err) != syscall.EIO {
		t.Fatalf("wrap(OperationError{}) = %v, want EIO", err)
	}
}
