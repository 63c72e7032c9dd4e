package fscopy

import (
	"errors"
	"syscall"

	"github.com/radoscp/radoscp/store"
)

// stopsTree reports whether err, a path's failure, stops a tree copy:
// a refusal by a directory quota (ErrDirQuota), or a data pool that is
// full or over its quota (ENOSPC, EDQUOT from the OSDs or from
// libcephfs, which refuses writes to a pool the OSD map flags full).
// Every file after it would fail alike, one error each: the copy stops
// at the first, as cp -a and rsync do.
func stopsTree(err error) bool {
	if errors.Is(err, ErrDirQuota) {
		return true
	}
	e := store.ErrnoOf(err)
	return e == syscall.ENOSPC || e == syscall.EDQUOT
}
