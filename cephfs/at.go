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
	gopath "path"
	"unsafe"

	gocephfs "github.com/ceph/go-ceph/cephfs"
)

// Paths below an open directory, walked from it rather than from the
// mount's root. Inside a snapshot this is what spares each call the walk
// through DIR/.snap/NAME: libcephfs keeps no dentry of a snapshot in the
// snapshot directory, so every walk through one asks the MDS twice (a
// getattr of the snapshot directory for the permission check, and a
// lookupsnap of NAME), while the names below it are answered from the
// client's cache once listed.

// LstatAt stats rel, a path below the open directory, not following a
// final symlink.
//
// Implements ceph_statxat.
func (fl *File) LstatAt(rel string) (Stat, error) {
	crel := C.CString(rel)
	defer C.free(unsafe.Pointer(crel))
	var stx C.struct_ceph_statx
	cm := mountPointer(fl.fs.m)
	ret := C.ceph_statxat(cm, fileDescriptor(fl.f), crel, &stx, C.uint(statMask), C.AT_SYMLINK_NOFOLLOW)
	if ret < 0 {
		return Stat{}, pathError("stat", gopath.Join(fl.path, rel), errnoErr(int(ret)))
	}
	return fromCStatx(&stx), nil
}

// OpenReadNoFollowAt opens rel, a path below the open directory, for
// reading, not following a final symlink (ELOOP).
//
// Implements ceph_openat.
func (fl *File) OpenReadNoFollowAt(rel string) (*File, error) {
	crel := C.CString(rel)
	defer C.free(unsafe.Pointer(crel))
	p := gopath.Join(fl.path, rel)
	fd := C.ceph_openat(mountPointer(fl.fs.m), fileDescriptor(fl.f), crel, C.O_RDONLY|C.O_NOFOLLOW, 0)
	if fd < 0 {
		return nil, pathError("open", p, errnoErr(int(fd)))
	}
	file := &File{fs: fl.fs, f: goFile(fl.fs.m, fd), path: p}
	st, err := file.Stat()
	if err != nil {
		file.f.Close()
		return nil, err
	}
	file.ino = st.Ino
	return file, nil
}

// goFile is a go-ceph File for a descriptor libcephfs opened, which
// go-ceph cannot make (it opens none relative to a directory): its
// mount pointer and the descriptor; the size check panics at first use
// if a go-ceph upgrade changes that.
func goFile(m *gocephfs.MountInfo, fd C.int) *gocephfs.File {
	type file struct {
		mount *gocephfs.MountInfo
		fd    C.int
	}
	if unsafe.Sizeof(gocephfs.File{}) != unsafe.Sizeof(file{}) {
		panic("cephfs: go-ceph's File is no longer a mount and a descriptor; update goFile")
	}
	return (*gocephfs.File)(unsafe.Pointer(&file{mount: m, fd: fd}))
}
