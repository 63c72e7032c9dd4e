package cephfs

/*
#cgo LDFLAGS: -lcephfs
#include <stdlib.h>
#include <fcntl.h>
#include <cephfs/libcephfs.h>
*/
import "C"

import "unsafe"

// The file capability bits (Ceph's protocol, ceph_fs.h: CEPH_CAP_G*
// shifted to CEPH_CAP_SFILE): the client may read the file's size and
// times (shared), hold them exclusively, read its data, write its data,
// or buffer writes.
const (
	capFileShared = 1 << 8
	capFileExcl   = 2 << 8
	capFileRD     = 8 << 8
	capFileWR     = 16 << 8
	capFileBuffer = 32 << 8
)

// HoldsReadCaps says whether this mount holds Fs, Fr or Fx on path. While
// it does, no other client holds Fb on the file: the MDS revokes buffer
// caps before it issues these to another client, and a client whose Fb
// is revoked writes its buffered data to the OSDs before it lets go. So
// every write a stat shows is then in the file's objects.
//
// Implements ceph_debug_get_file_caps, which go-ceph does not wrap.
func (f *FS) HoldsReadCaps(path string) (bool, error) {
	caps, err := f.fileCaps(path)
	return caps&(capFileShared|capFileExcl|capFileRD) != 0, err
}

func (f *FS) fileCaps(path string) (int, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	ret := C.ceph_debug_get_file_caps(mountPointer(f.m), cpath)
	if ret < 0 {
		return 0, pathError("get caps", path, errnoErr(int(ret)))
	}
	return int(ret), nil
}

// HoldsWriteCaps says whether this mount still holds write capabilities
// (Fw or Fb) on path. While it does, the MDS keeps a writable byte range
// for this client on the inode; after the file is closed the client gives
// them back lazily (client_caps_release_delay plus about 1 s later: 6 s
// by default, 1 s on a Session's mounts).
//
// Implements ceph_debug_get_file_caps, which go-ceph does not wrap.
func (f *FS) HoldsWriteCaps(path string) (bool, error) {
	caps, err := f.fileCaps(path)
	return caps&(capFileWR|capFileBuffer) != 0, err
}

// InodeRef is a reference this mount holds on an inode, without opening
// it: the client keeps the inode, and its caps, in its cache (and reports
// them to an MDS it reconnects to) until Release, yet wants no caps for
// it, so it gives back those it no longer needs.
type InodeRef struct {
	fs   *FS
	in   *C.struct_Inode
	path string
	ino  uint64
}

// Ref takes a reference on the inode at path (a final symlink is not
// followed).
//
// Implements ceph_ll_walk, which go-ceph does not wrap.
func (f *FS) Ref(path string) (*InodeRef, error) {
	if f.below(path) {
		return f.refIn(path)
	}
	// The inode number needs no cap: asking for it costs no request.
	return f.walk(path, C.AT_SYMLINK_NOFOLLOW)
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

// Stat stats the referenced inode, whatever name it has now: from the
// caps this client holds on it, or else from the MDS (which first has a
// client holding changes to it flush them).
//
// Implements ceph_ll_getattr.
func (r *InodeRef) Stat() (Stat, error) {
	cm := mountPointer(r.fs.m)
	var stx C.struct_ceph_statx
	if ret := C.ceph_ll_getattr(cm, r.in, &stx, C.CEPH_STATX_BASIC_STATS, 0, C.ceph_mount_perms(cm)); ret < 0 {
		return Stat{}, pathError("stat", r.path, errnoErr(int(ret)))
	}
	return fromCStatx(&stx), nil
}

// Release drops the reference.
//
// Implements ceph_ll_put.
func (r *InodeRef) Release() { C.ceph_ll_put(mountPointer(r.fs.m), r.in) }

// Recheck opens the inode read-only and closes it again. The close makes
// the client look at the inode's caps once more (client_caps_release_delay
// later) and give back those no open file wants. Caps the MDS grants in a
// reply to a request on the inode (a hard link's, for one) are otherwise
// kept until the MDS revokes them: the client looks at an inode's caps
// when a file of it is closed or a cap message comes, not when a reply
// brings caps nobody asked for. The open is answered from the caps the
// client holds (read caps), without an MDS request.
//
// Implements ceph_ll_open and ceph_ll_close.
func (r *InodeRef) Recheck() error {
	cm := mountPointer(r.fs.m)
	var fh *C.struct_Fh
	if ret := C.ceph_ll_open(cm, r.in, C.O_RDONLY, &fh, C.ceph_mount_perms(cm)); ret < 0 {
		return pathError("open", r.path, errnoErr(int(ret)))
	}
	if ret := C.ceph_ll_close(cm, fh); ret < 0 {
		return pathError("close", r.path, errnoErr(int(ret)))
	}
	return nil
}
