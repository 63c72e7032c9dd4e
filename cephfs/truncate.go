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
	"time"

	gocephfs "github.com/ceph/go-ceph/cephfs"
)

// Truncate sets the file's size through the MDS, and its mtime to now,
// as truncate(2) does. Shrinking bumps the file's truncate generation and
// makes the MDS trim its objects.
//
// Implements ceph_fsetattrx with CEPH_SETATTR_SIZE and CEPH_SETATTR_MTIME.
// libcephfs's own ceph_ftruncate (go-ceph's File.Truncate) sends the size
// with the times of an uninitialised struct stat: on Ceph 16.2 a file it
// grows gets an mtime decades off (seen: 2012, 2027, 2042, 2050).
func (fl *File) Truncate(size uint64) error {
	stx := C.struct_ceph_statx{stx_size: C.uint64_t(size), stx_mtime: cTimespec(time.Now())}
	ret := C.ceph_fsetattrx(mountPointer(fl.fs.m), fileDescriptor(fl.f), &stx, C.CEPH_SETATTR_SIZE|C.CEPH_SETATTR_MTIME)
	if ret < 0 {
		return pathError("truncate", fl.path, errnoErr(int(ret)))
	}
	return nil
}

// fileDescriptor is the libcephfs descriptor behind a go-ceph File.
func fileDescriptor(f *gocephfs.File) C.int { return C.int(f.Fd()) }
