package store

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// Error is every error an object store returns from an operation: what
// was being done, to which objects, and the errno the cluster answered.
type Error struct {
	Op     string // "copy", "read", "write", "stat", "connect", ...
	Object string // "pool[/namespace]/object"; empty for pool or cluster ops
	Target string // the destination of a copy; empty otherwise
	Errno  syscall.Errno
	Detail string // extra context for errors that are not plain errnos
}

// Sentinels for the errnos callers branch on. Match with errors.Is: any
// *Error with the same errno matches, whatever its objects.
var (
	ErrNotFound     = &Error{Errno: syscall.ENOENT}
	ErrNotSupported = &Error{Errno: syscall.EOPNOTSUPP}
	ErrPermission   = &Error{Errno: syscall.EPERM}
	ErrIO           = &Error{Errno: syscall.EIO}
	ErrRange        = &Error{Errno: syscall.ERANGE}
	ErrTimedOut     = &Error{Errno: syscall.ETIMEDOUT}
	ErrExists       = &Error{Errno: syscall.EEXIST}
)

func (e *Error) Error() string {
	msg := e.Op
	if e.Object != "" {
		msg += " " + e.Object
	}
	if e.Target != "" {
		msg += " -> " + e.Target
	}
	msg += ": " + ErrnoName(e.Errno)
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg
}

// Is matches another *Error by errno, and a bare syscall.Errno.
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case *Error:
		return t.Errno == e.Errno
	case syscall.Errno:
		return t == e.Errno
	}
	return false
}

// Unwrap exposes the errno, so errors.As(err, &syscall.Errno) works.
func (e *Error) Unwrap() error { return e.Errno }

// ErrnoName gives an errno's symbolic name ("EIO"), or "errno N" for one
// that has none. Errno 0 never reaches here from the cluster.
func ErrnoName(errno syscall.Errno) string {
	if errno == syscall.EOPNOTSUPP {
		return "EOPNOTSUPP" // Linux's ENOTSUP is the same number; Ceph says this
	}
	if name := unix.ErrnoName(errno); name != "" {
		return name
	}
	return fmt.Sprintf("errno %d", int(errno))
}

// ErrnoOf reports the errno an error carries, or 0 if it carries none.
func ErrnoOf(err error) syscall.Errno {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return 0
}
