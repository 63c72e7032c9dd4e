package cephfs

/*
#cgo LDFLAGS: -lcephfs
#cgo CPPFLAGS: -D_FILE_OFFSET_BITS=64
#include <stdlib.h>
#include <fcntl.h>
#include <cephfs/libcephfs.h>
*/
import "C"

import (
	"strconv"
	"time"
	"unsafe"

	gocephfs "github.com/ceph/go-ceph/cephfs"
)

// Attrs are the metadata radoscp keeps: ownership, permissions and times.
type Attrs struct {
	Mode         uint32 // permission bits, with setuid, setgid and sticky
	UID, GID     uint32
	Atime, Mtime time.Time
}

// SetAttrs sets ownership, permissions and times of path without
// following a final symlink (a symlink's own mode cannot be set, so only
// its ownership and times are).
//
// Implements ceph_setattrx with AT_SYMLINK_NOFOLLOW, which go-ceph does not
// wrap.
func (f *FS) SetAttrs(path string, a Attrs, symlink bool) error {
	if f.below(path) || f.confinedItself(path) {
		return f.setAttrsIn(path, a, symlink)
	}
	stx, mask := a.statx(symlink)
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	ret := C.ceph_setattrx(mountPointer(f.m), cpath, &stx, mask, C.AT_SYMLINK_NOFOLLOW)
	if ret < 0 {
		return pathError("set attributes", path, errnoErr(int(ret)))
	}
	return nil
}

// SetTimes sets the access and modification times of the referenced
// inode, whatever name it has now, and nothing else: its mode and owner
// are left as they are.
//
// Implements ceph_ll_setattr.
func (r *InodeRef) SetTimes(atime, mtime time.Time) error {
	stx := C.struct_ceph_statx{stx_atime: cTimespec(atime), stx_mtime: cTimespec(mtime)}
	cm := mountPointer(r.fs.m)
	if ret := C.ceph_ll_setattr(cm, r.in, &stx, C.CEPH_SETATTR_ATIME|C.CEPH_SETATTR_MTIME, C.ceph_mount_perms(cm)); ret < 0 {
		return pathError("set times", r.path, errnoErr(int(ret)))
	}
	return nil
}

// statx is a as ceph_setattrx and ceph_ll_setattr take it.
func (a Attrs) statx(symlink bool) (C.struct_ceph_statx, C.int) {
	var stx C.struct_ceph_statx
	mask := C.CEPH_SETATTR_UID | C.CEPH_SETATTR_GID | C.CEPH_SETATTR_ATIME | C.CEPH_SETATTR_MTIME
	if !symlink {
		mask |= C.CEPH_SETATTR_MODE
		stx.stx_mode = C.uint16_t(a.Mode & 0o7777)
	}
	stx.stx_uid, stx.stx_gid = C.uint32_t(a.UID), C.uint32_t(a.GID)
	stx.stx_atime = cTimespec(a.Atime)
	stx.stx_mtime = cTimespec(a.Mtime)
	return stx, C.int(mask)
}

func cTimespec(t time.Time) C.struct_timespec {
	return C.struct_timespec{tv_sec: C.time_t(t.Unix()), tv_nsec: C.long(t.Nanosecond())}
}

// mountPointer is the ceph_mount_info behind a go-ceph mount. go-ceph keeps
// it as the only field of MountInfo and does not export it; the size check
// below fails the build's tests (and panics at first use) if a go-ceph
// upgrade changes that.
func mountPointer(m *gocephfs.MountInfo) *C.struct_ceph_mount_info {
	if unsafe.Sizeof(*m) != unsafe.Sizeof(uintptr(0)) {
		panic("cephfs: go-ceph's MountInfo is no longer one pointer; update mountPointer")
	}
	return *(**C.struct_ceph_mount_info)(unsafe.Pointer(m))
}

// errnoErr is a negative libcephfs return code as an error go-ceph's
// errors resemble (ErrorCode gives it back), for pathError.
type errnoErr int

func (e errnoErr) Error() string  { return "cephfs: ret=" + strconv.Itoa(int(e)) }
func (e errnoErr) ErrorCode() int { return int(e) }

// SetAttrs sets the open file's ownership, permissions and times. On a
// file this client holds exclusive caps on (one it just created), the
// client keeps them as dirty caps, sent to the MDS in a cap flush (the
// next sync, or when the caps go back), not as a request of their own:
// libcephfs' Client::_do_setattr buffers the owner and mode under Ax and
// the times under Fx.
//
// Implements ceph_fsetattrx, which go-ceph does not wrap.
func (fl *File) SetAttrs(a Attrs) error {
	stx, mask := a.statx(false)
	if ret := C.ceph_fsetattrx(mountPointer(fl.fs.m), fileDescriptor(fl.f), &stx, mask); ret < 0 {
		return pathError("set attributes", fl.path, errnoErr(int(ret)))
	}
	return nil
}
