package rados

import (
	"errors"
	"syscall"

	gorados "github.com/ceph/go-ceph/rados"
	"github.com/radoscp/radoscp/store"
)

// codeError is how go-ceph's errors expose their (negative) errno.
type codeError interface{ ErrorCode() int }

// wrap turns a go-ceph error or a negative return code into an *Error.
func wrap(op, object string, err error) error {
	if err == nil {
		return nil
	}
	// A write or read op's error is go-ceph's OperationError, which
	// holds the op's own error without unwrapping to it.
	var oe gorados.OperationError
	if errors.As(err, &oe) && oe.OpError != nil {
		err = oe.OpError
	}
	var ce codeError
	if errors.As(err, &ce) {
		return errnoError(op, object, ce.ErrorCode())
	}
	return &store.Error{Op: op, Object: object, Errno: syscall.EIO, Detail: err.Error()}
}

// errnoError builds an *Error from a librados return code (negative errno).
func errnoError(op, object string, ret int) error {
	if ret >= 0 {
		return nil
	}
	return &store.Error{Op: op, Object: object, Errno: syscall.Errno(-ret)}
}

// ErrnoError wraps an error from go-ceph as an *Error for op on object,
// keeping its errno, for callers that use go-ceph directly.
func ErrnoError(op, object string, err error) error { return wrap(op, object, err) }
