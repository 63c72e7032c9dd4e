package cephfs

/*
#cgo LDFLAGS: -lcephfs
#cgo CPPFLAGS: -D_FILE_OFFSET_BITS=64
#include <stdlib.h>
#include <dirent.h>
#include <fcntl.h>
#include <cephfs/libcephfs.h>
*/
import "C"

import (
	gopath "path"
	"syscall"
	"unsafe"
)

// Operations on a directory by its inode, not by path: a name is looked
// up, listed, unlinked or removed in the directory the reference holds,
// whatever another client has renamed or replaced on the way to it
// since. A symlink's name is never followed. This is what a pass that
// removes entries needs to stay inside a tree another client can change:
// a path resolved again at each step follows a directory swapped for a
// symlink out of it.

// Path is the path the reference was taken at (for messages; the inode
// may have another name now).
func (r *InodeRef) Path() string { return r.path }

// Lookup takes a reference on the inode named name in the referenced
// directory, and stats it: a symlink is the symlink's own inode, not
// followed. The caller releases the reference.
//
// Implements ceph_ll_lookup.
func (r *InodeRef) Lookup(name string) (*InodeRef, Stat, error) {
	next, stx, err := r.lookup(name, C.CEPH_STATX_BASIC_STATS)
	if err != nil {
		return nil, Stat{}, err
	}
	return next, fromCStatx(&stx), nil
}

// lookup takes a reference on the inode named name in the referenced
// directory, not following a symlink, and stats it for want.
//
// Implements ceph_ll_lookup.
func (r *InodeRef) lookup(name string, want C.uint) (*InodeRef, C.struct_ceph_statx, error) {
	cm := mountPointer(r.fs.m)
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	p := gopath.Join(r.path, name)
	var in *C.struct_Inode
	var stx C.struct_ceph_statx
	ret := C.ceph_ll_lookup(cm, r.in, cname, &in, &stx, want, C.AT_SYMLINK_NOFOLLOW, C.ceph_mount_perms(cm))
	if ret < 0 {
		return nil, stx, pathError("look up", p, errnoErr(int(ret)))
	}
	return &InodeRef{fs: r.fs, in: in, path: p, ino: uint64(stx.stx_ino)}, stx, nil
}

// ReadDir lists the referenced directory as FS.ReadDir lists a path
// (past "." and "..", see readDir).
//
// Implements ceph_ll_opendir, ceph_seekdir, ceph_readdirplus_r and
// ceph_ll_releasedir.
func (r *InodeRef) ReadDir() ([]Entry, error) {
	cm := mountPointer(r.fs.m)
	var dirp *C.struct_ceph_dir_result
	if ret := C.ceph_ll_opendir(cm, r.in, &dirp, C.ceph_mount_perms(cm)); ret < 0 {
		return nil, pathError("open directory", r.path, errnoErr(int(ret)))
	}
	defer C.ceph_ll_releasedir(cm, dirp)
	r.fs.listings.Add(1)
	C.ceph_seekdir(cm, dirp, firstEntry)
	return readEntries(cm, dirp, r.path, nil)
}

// Ino is the referenced inode's number.
func (r *InodeRef) Ino() uint64 { return r.ino }

// ReadDirHeld is ReadDir that also holds each subdirectory listed, by
// the inode its listing stat'ed: a caller that reads something of every
// subdirectory (an xattr) needs no lookup of its name, which inside a
// snapshot is a request to the MDS each (libcephfs caches no dentry
// there). The caller releases every reference in subdirs, keyed by name,
// also on an error (then none are returned).
//
// Implements ceph_ll_opendir, ceph_seekdir, ceph_readdirplus_r (asking
// for the inode) and ceph_ll_releasedir.
func (r *InodeRef) ReadDirHeld() (entries []Entry, subdirs map[string]*InodeRef, err error) {
	cm := mountPointer(r.fs.m)
	var dirp *C.struct_ceph_dir_result
	if ret := C.ceph_ll_opendir(cm, r.in, &dirp, C.ceph_mount_perms(cm)); ret < 0 {
		return nil, nil, pathError("open directory", r.path, errnoErr(int(ret)))
	}
	defer C.ceph_ll_releasedir(cm, dirp)
	r.fs.listings.Add(1)
	C.ceph_seekdir(cm, dirp, firstEntry)
	subdirs = map[string]*InodeRef{}
	entries, err = readEntries(cm, dirp, r.path, func(name string, st Stat, in *C.struct_Inode) bool {
		if !st.IsDir() {
			return false
		}
		subdirs[name] = &InodeRef{fs: r.fs, in: in, path: gopath.Join(r.path, name), ino: st.Ino}
		return true
	})
	if err != nil {
		for _, d := range subdirs {
			d.Release()
		}
		return nil, nil, err
	}
	return entries, subdirs, nil
}

// Unlink removes the entry name, a file, symlink or special file, from
// the referenced directory (unlink(2): a directory gives EISDIR).
//
// Implements ceph_ll_unlink.
func (r *InodeRef) Unlink(name string) error {
	return r.onName("unlink", name, func(cm *C.struct_ceph_mount_info, cname *C.char) C.int {
		return C.ceph_ll_unlink(cm, r.in, cname, C.ceph_mount_perms(cm))
	})
}

// Rmdir removes the empty directory name from the referenced directory
// (rmdir(2): anything else gives ENOTDIR, a directory with entries
// ENOTEMPTY).
//
// Implements ceph_ll_rmdir.
func (r *InodeRef) Rmdir(name string) error {
	return r.onName("remove directory", name, func(cm *C.struct_ceph_mount_info, cname *C.char) C.int {
		return C.ceph_ll_rmdir(cm, r.in, cname, C.ceph_mount_perms(cm))
	})
}

// onName runs call, a libcephfs call on name in the referenced
// directory, and wraps its error with op and the name's path.
func (r *InodeRef) onName(op, name string, call func(*C.struct_ceph_mount_info, *C.char) C.int) error {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	if ret := call(mountPointer(r.fs.m), cname); ret < 0 {
		return pathError(op, gopath.Join(r.path, name), errnoErr(int(ret)))
	}
	return nil
}

// maxXattrProbe is the largest buffer GetXattr doubles to before it asks
// a value's size (CephFS's xattrs are at most 64 KiB).
const maxXattrProbe = 64 << 10

// GetXattr reads extended attribute name of the referenced inode.
//
// Implements ceph_ll_getxattr: once with a buffer that holds most values,
// doubled on ERANGE, as go-ceph's path calls do. Asking for the size
// first cost the MDS a second request for a value the client does not
// cache (a vxattr such as ceph.dir.rctime, which an incremental copy
// reads once per directory of a snapshot).
func (r *InodeRef) GetXattr(name string) ([]byte, error) {
	cm := mountPointer(r.fs.m)
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	size := 1024
	for {
		buf := make([]byte, size)
		n := C.ceph_ll_getxattr(cm, r.in, cname, unsafe.Pointer(&buf[0]), C.size_t(size), C.ceph_mount_perms(cm))
		switch {
		case n == -C.int(syscall.ERANGE) && size < maxXattrProbe:
			size *= 2
		case n == -C.int(syscall.ERANGE): // larger than values should be: ask
			need := C.ceph_ll_getxattr(cm, r.in, cname, nil, 0, C.ceph_mount_perms(cm))
			if need < 0 {
				return nil, pathError("get xattr "+name, r.path, errnoErr(int(need)))
			}
			size = int(need) + 1
		case n < 0:
			return nil, pathError("get xattr "+name, r.path, errnoErr(int(n)))
		default:
			return buf[:n], nil
		}
	}
}
