package cephfs

/*
#cgo LDFLAGS: -lcephfs
#cgo CPPFLAGS: -D_FILE_OFFSET_BITS=64
#include <stdlib.h>
#include <sys/types.h>
#include <cephfs/libcephfs.h>
*/
import "C"

import "unsafe"

// Mknod makes the special file path (a FIFO, socket, or character or
// block device) with mode's type and permission bits and, for a device,
// device number rdev in Ceph's form (Stat.Rdev).
//
// Implements ceph_mknod: go-ceph's Mknod takes a 16-bit device number,
// which would cut off a major or minor number over 255.
func (f *FS) Mknod(path string, mode uint32, rdev uint64) error {
	if f.below(path) {
		return f.mknodIn(path, mode, rdev)
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	if ret := C.ceph_mknod(mountPointer(f.m), cpath, C.mode_t(mode), C.dev_t(rdev)); ret < 0 {
		return pathError("make special file", path, errnoErr(int(ret)))
	}
	return nil
}
