package cephfs

/*
#cgo LDFLAGS: -lcephfs
#cgo CPPFLAGS: -D_FILE_OFFSET_BITS=64
#include <stdlib.h>
#include <cephfs/libcephfs.h>
*/
import "C"

import "unsafe"

// SnapID is the id of the snapshot that path (DIR/.snap/NAME, or a path
// inside it) belongs to: the snapid its inodes carry, under which the
// OSDs keep the snapshot's objects on the file system's data pools (a
// self-managed snapshot). A path outside any snapshot gives EINVAL, a
// missing one ENOENT.
//
// Implements ceph_get_snap_info (and ceph_free_snap_info_buffer), which
// go-ceph does not wrap.
func (f *FS) SnapID(path string) (uint64, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var info C.struct_snap_info
	ret := C.ceph_get_snap_info(mountPointer(f.m), cpath, &info)
	if ret < 0 {
		return 0, pathError("get snapshot info", path, errnoErr(int(ret)))
	}
	id := uint64(info.id)
	C.ceph_free_snap_info_buffer(&info)
	return id, nil
}
