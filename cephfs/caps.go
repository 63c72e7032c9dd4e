package cephfs

/*
#cgo LDFLAGS: -lcephfs
#include <stdlib.h>
#include <fcntl.h>
#include <cephfs/libcephfs.h>
*/
import "C"

import "unsafe"

// The file capability bits (Ceph's protocol, ceph_fs.h: CEPH_CAP_GWR and
// CEPH_CAP_GBUFFER shifted to CEPH_CAP_SFILE): the client may write the
// file's data, or buffer writes.
const (
	capFileWR     = 16 << 8
	capFileBuffer = 32 << 8
)

// HoldsWriteCaps says whether this mount still holds write capabilities
// (Fw or Fb) on path. While it does, the MDS keeps a writable byte range
// for this client on the inode; after the file is closed the client gives
// them back lazily (client_caps_release_delay, 5 s by default).
//
// Implements ceph_debug_get_file_caps, which go-ceph does not wrap.
func (f *FS) HoldsWriteCaps(path string) (bool, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	ret := C.ceph_debug_get_file_caps(mountPointer(f.m), cpath)
	if ret < 0 {
		return false, pathError("get caps", path, errnoErr(int(ret)))
	}
	return ret&(capFileWR|capFileBuffer) != 0, nil
}

// InodeRef is a reference this mount holds on an inode, without opening
// it: the client keeps the inode, and its caps, in its cache (and reports
// them to an MDS it reconnects to) until Release, yet wants no caps for
// it, so it gives back those it no longer needs.
type InodeRef struct {
	fs   *FS
	in   *C.struct_Inode
	path string
}

// Ref takes a reference on the inode at path (a final symlink is not
// followed).
//
// Implements ceph_ll_walk, which go-ceph does not wrap.
func (f *FS) Ref(path string) (*InodeRef, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	cm := mountPointer(f.m)
	var in *C.struct_Inode
	var stx C.struct_ceph_statx
	ret := C.ceph_ll_walk(cm, cpath, &in, &stx, 0, C.AT_SYMLINK_NOFOLLOW, C.ceph_mount_perms(cm))
	if ret < 0 {
		return nil, pathError("look up", path, errnoErr(int(ret)))
	}
	return &InodeRef{fs: f, in: in, path: path}, nil
}

// Sync waits until every change to the inode this client made is
// journaled by the MDS (and its dirty caps flushed).
//
// Implements ceph_ll_sync_inode.
func (r *InodeRef) Sync() error {
	ret := C.ceph_ll_sync_inode(mountPointer(r.fs.m), r.in, 0)
	if ret < 0 {
		return pathError("sync", r.path, errnoErr(int(ret)))
	}
	return nil
}

// Release drops the reference.
//
// Implements ceph_ll_put.
func (r *InodeRef) Release() { C.ceph_ll_put(mountPointer(r.fs.m), r.in) }
