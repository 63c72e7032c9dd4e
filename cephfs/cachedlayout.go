package cephfs

/*
#cgo LDFLAGS: -lcephfs
#cgo CPPFLAGS: -D_FILE_OFFSET_BITS=64
#include <stdlib.h>
#include <cephfs/libcephfs.h>
*/
import "C"

import (
	"unsafe"

	"github.com/radoscp/radoscp/layout"
)

// CachedLayout is the layout of path as this client has it: striping and
// data pool, from the inode in its cache, without a round trip to the
// MDS (Layout reads the ceph.file.layout vxattr, which libcephfs always
// refreshes from the MDS first). It has no pool namespace: libcephfs
// gives none but through that vxattr.
//
// Implements ceph_get_path_layout and ceph_get_path_pool_name, which
// go-ceph does not wrap.
func (f *FS) CachedLayout(path string) (l layout.Layout, poolName string, err error) {
	if f.onFileAt(path, func(fl *File) { l, poolName, err = fl.CachedLayout() }) {
		return l, poolName, err
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var su, sc, os, pool C.int
	if ret := C.ceph_get_path_layout(mountPointer(f.m), cpath, &su, &sc, &os, &pool); ret < 0 {
		return layout.Layout{}, "", pathError("get layout", path, errnoErr(int(ret)))
	}
	var buf [256]C.char
	ret := C.ceph_get_path_pool_name(mountPointer(f.m), cpath, &buf[0], C.size_t(len(buf)))
	if ret < 0 {
		return layout.Layout{}, "", pathError("get pool name", path, errnoErr(int(ret)))
	}
	l = layout.Layout{StripeUnit: uint64(su), StripeCount: uint64(sc), ObjectSize: uint64(os)}
	return l, C.GoString(&buf[0]), nil
}

// CachedLayout is FS.CachedLayout for the open file: no path is walked.
//
// Implements ceph_get_file_layout and ceph_get_file_pool_name, which
// go-ceph does not wrap.
func (fl *File) CachedLayout() (layout.Layout, string, error) {
	cm, fd := mountPointer(fl.fs.m), fileDescriptor(fl.f)
	var su, sc, os, pool C.int
	if ret := C.ceph_get_file_layout(cm, fd, &su, &sc, &os, &pool); ret < 0 {
		return layout.Layout{}, "", pathError("get layout", fl.path, errnoErr(int(ret)))
	}
	var buf [256]C.char
	if ret := C.ceph_get_file_pool_name(cm, fd, &buf[0], C.size_t(len(buf))); ret < 0 {
		return layout.Layout{}, "", pathError("get pool name", fl.path, errnoErr(int(ret)))
	}
	l := layout.Layout{StripeUnit: uint64(su), StripeCount: uint64(sc), ObjectSize: uint64(os)}
	return l, C.GoString(&buf[0]), nil
}
