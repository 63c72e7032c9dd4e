package main

import (
	"errors"
	"syscall"

	"github.com/radoscp/radoscp/fscopy"
)

// spaceHint is what an operator can do about a copy that failed because
// a pool filled up, or "".
func spaceHint(err error) string {
	switch {
	case errors.Is(err, fscopy.ErrDirQuota):
		return "raise that directory's quota (setfattr -n ceph.quota.max_bytes -v BYTES DIR, or ceph.quota.max_files) or free space under it, then run the copy again: files already in place are skipped, and --resume continues a file whose staging file was kept"
	case errors.Is(err, syscall.EDQUOT):
		return "the destination pool is over its quota: raise it (ceph osd pool set-quota POOL max_bytes N) or free space, then run the copy again (with --resume for a striper: or cephfs: destination)"
	case errors.Is(err, syscall.ENOSPC):
		return "the cluster is full (ceph health detail names the OSD): free space or add capacity, then run the copy again (with --resume for a striper: or cephfs: destination)"
	}
	return ""
}
