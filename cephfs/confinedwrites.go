package cephfs

/*
#cgo LDFLAGS: -lcephfs
#cgo CPPFLAGS: -D_FILE_OFFSET_BITS=64
#include <stdlib.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <cephfs/libcephfs.h>
*/
import "C"

import (
	"os"
	"syscall"
	"unsafe"
)

// The writes below a confined directory (confine.go), each on the inode
// of the directory it writes in, or of the entry it changes; and the
// reads that take data or entries from there (listings, opens,
// references), which follow no symlink either.

// call runs call on name, a name in the referenced directory or of an
// xattr of the referenced inode, as a C string, and wraps its error with op and path.
func (r *InodeRef) call(op, path, name string, call func(cm *C.struct_ceph_mount_info, cname *C.char) C.int) error {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	if ret := call(mountPointer(r.fs.m), cname); ret < 0 {
		return pathError(op, path, errnoErr(int(ret)))
	}
	return nil
}

// Implements ceph_ll_mkdir.
func (f *FS) mkdirIn(path string, perm uint32) error {
	return f.inDir(path, func(dir *InodeRef, name string) error {
		return dir.call("mkdir", path, name, func(cm *C.struct_ceph_mount_info, cname *C.char) C.int {
			var in *C.struct_Inode
			var stx C.struct_ceph_statx
			ret := C.ceph_ll_mkdir(cm, dir.in, cname, C.mode_t(perm), &in, &stx, 0, 0, C.ceph_mount_perms(cm))
			if ret == 0 {
				C.ceph_ll_put(cm, in)
			}
			return ret
		})
	})
}

// Implements ceph_ll_symlink.
func (f *FS) symlinkIn(target, path string) error {
	ctarget := C.CString(target)
	defer C.free(unsafe.Pointer(ctarget))
	return f.inDir(path, func(dir *InodeRef, name string) error {
		return dir.call("symlink", path, name, func(cm *C.struct_ceph_mount_info, cname *C.char) C.int {
			var in *C.struct_Inode
			var stx C.struct_ceph_statx
			ret := C.ceph_ll_symlink(cm, dir.in, cname, ctarget, &in, &stx, 0, 0, C.ceph_mount_perms(cm))
			if ret == 0 {
				C.ceph_ll_put(cm, in)
			}
			return ret
		})
	})
}

// Implements ceph_ll_mknod.
func (f *FS) mknodIn(path string, mode uint32, rdev uint64) error {
	return f.inDir(path, func(dir *InodeRef, name string) error {
		return dir.call("make special file", path, name, func(cm *C.struct_ceph_mount_info, cname *C.char) C.int {
			var in *C.struct_Inode
			var stx C.struct_ceph_statx
			ret := C.ceph_ll_mknod(cm, dir.in, cname, C.mode_t(mode), C.dev_t(rdev), &in, &stx, 0, 0, C.ceph_mount_perms(cm))
			if ret == 0 {
				C.ceph_ll_put(cm, in)
			}
			return ret
		})
	})
}

// Implements ceph_ll_unlink.
func (f *FS) unlinkIn(path string) error {
	return f.inDir(path, func(dir *InodeRef, name string) error {
		return dir.call("unlink", path, name, func(cm *C.struct_ceph_mount_info, cname *C.char) C.int {
			return C.ceph_ll_unlink(cm, dir.in, cname, C.ceph_mount_perms(cm))
		})
	})
}

// Implements ceph_ll_rmdir.
func (f *FS) rmdirIn(path string) error {
	return f.inDir(path, func(dir *InodeRef, name string) error {
		return dir.call("rmdir", path, name, func(cm *C.struct_ceph_mount_info, cname *C.char) C.int {
			return C.ceph_ll_rmdir(cm, dir.in, cname, C.ceph_mount_perms(cm))
		})
	})
}

// Implements ceph_ll_rename.
func (f *FS) renameIn(from, to string) error {
	return f.inDir(from, func(fromDir *InodeRef, fromName string) error {
		return f.inDir(to, func(toDir *InodeRef, toName string) error {
			ctoName := C.CString(toName)
			defer C.free(unsafe.Pointer(ctoName))
			return fromDir.call("rename to "+to, from, fromName, func(cm *C.struct_ceph_mount_info, cname *C.char) C.int {
				return C.ceph_ll_rename(cm, fromDir.in, cname, toDir.in, ctoName, C.ceph_mount_perms(cm))
			})
		})
	})
}

// Implements ceph_ll_link.
func (f *FS) linkIn(target, path string) error {
	return f.onInode(target, func(in *InodeRef, _ uint32) error {
		return f.inDir(path, func(dir *InodeRef, name string) error {
			return dir.call("link to "+target, path, name, func(cm *C.struct_ceph_mount_info, cname *C.char) C.int {
				return C.ceph_ll_link(cm, in.in, dir.in, cname, C.ceph_mount_perms(cm))
			})
		})
	})
}

// Implements ceph_ll_setattr: a symlink's attributes are set only when
// the caller sets a symlink's (a symlink where the caller expects
// something else gives ELOOP).
func (f *FS) setAttrsIn(path string, a Attrs, symlink bool) error {
	stx, mask := a.statx(symlink)
	return f.onInode(path, func(in *InodeRef, mode uint32) error {
		if mode&syscall.S_IFMT == syscall.S_IFLNK && !symlink {
			return pathError("set attributes", path, errnoErr(-int(syscall.ELOOP)))
		}
		cm := mountPointer(f.m)
		if ret := C.ceph_ll_setattr(cm, in.in, &stx, mask, C.ceph_mount_perms(cm)); ret < 0 {
			return pathError("set attributes", path, errnoErr(int(ret)))
		}
		return nil
	})
}

// Implements ceph_ll_setxattr.
func (f *FS) setXattrIn(path, name string, value []byte) error {
	return f.onInode(path, func(in *InodeRef, _ uint32) error {
		return in.call("set xattr "+name, path, name, func(cm *C.struct_ceph_mount_info, cname *C.char) C.int {
			var v unsafe.Pointer
			if len(value) > 0 {
				v = C.CBytes(value)
				defer C.free(v)
			}
			return C.ceph_ll_setxattr(cm, in.in, cname, v, C.size_t(len(value)), 0, C.ceph_mount_perms(cm))
		})
	})
}

// Implements ceph_ll_removexattr.
func (f *FS) removeXattrIn(path, name string) error {
	return f.onInode(path, func(in *InodeRef, _ uint32) error {
		return in.call("remove xattr "+name, path, name, func(cm *C.struct_ceph_mount_info, cname *C.char) C.int {
			return C.ceph_ll_removexattr(cm, in.in, cname, C.ceph_mount_perms(cm))
		})
	})
}

// createIn creates path exclusively in the directory found for it
// (ceph_ll_create), and opens it by path for the descriptor a File needs
// while the create's own handle is still open, so that the open is
// answered from the caps the create brought. The file opened must be the
// one created: if the path leads elsewhere now, it is closed and EXDEV
// returned, and the file created removed again if it is still there.
//
// Implements ceph_ll_create and ceph_ll_close.
func (f *FS) createIn(path string, flags int, perm uint32) (*File, error) {
	var file *File
	err := f.inDir(path, func(dir *InodeRef, name string) error {
		var in *C.struct_Inode
		var fh *C.struct_Fh
		var stx C.struct_ceph_statx
		err := dir.call("open", path, name, func(cm *C.struct_ceph_mount_info, cname *C.char) C.int {
			return C.ceph_ll_create(cm, dir.in, cname, C.mode_t(perm), C.int(flags|syscall.O_NOFOLLOW), &in, &fh, &stx, C.CEPH_STATX_INO, 0, C.ceph_mount_perms(cm))
		})
		if err != nil {
			return err
		}
		cm := mountPointer(f.m)
		defer C.ceph_ll_put(cm, in)
		defer C.ceph_ll_close(cm, fh)
		made := uint64(stx.stx_ino)
		file, err = f.openPath(path, (flags&^(os.O_CREATE|os.O_EXCL))|syscall.O_NOFOLLOW, 0)
		if err == nil && file.ino != made {
			file.f.Close()
			file, err = nil, pathError("open (the path no longer leads to the file created)", path, errnoErr(-int(syscall.EXDEV)))
		}
		if err != nil {
			if e, _, lerr := dir.lookupEntry(name); lerr == nil {
				if e.ino == made {
					dir.call("unlink", path, name, func(cm *C.struct_ceph_mount_info, cname *C.char) C.int {
						return C.ceph_ll_unlink(cm, dir.in, cname, C.ceph_mount_perms(cm))
					})
				}
				e.Release()
			}
		}
		return err
	})
	return file, err
}

// openIn opens path by path, and checks that the file opened is the one
// at path's name in the directory found for it (so a final symlink gives
// EXDEV too, even where the flags follow it).
func (f *FS) openIn(path string, flags int) (*File, error) {
	file, err := f.openPath(path, flags, 0)
	if err != nil {
		return nil, err
	}
	err = f.onInode(path, func(in *InodeRef, _ uint32) error {
		if in.ino != file.ino {
			return pathError("open (the path no longer leads to the file found below the copy's root)", path, errnoErr(-int(syscall.EXDEV)))
		}
		return nil
	})
	if err != nil {
		file.f.Close()
		return nil, err
	}
	return file, nil
}

// readDirIn lists directory path, found from the confined directory
// above it following no symlink.
func (f *FS) readDirIn(path string) ([]Entry, error) {
	var entries []Entry
	err := f.inDir(path, func(dir *InodeRef, name string) error {
		d, err := dir.lookupDir(name)
		if err != nil {
			return err
		}
		defer d.Release()
		entries, err = d.ReadDir()
		return err
	})
	return entries, err
}

// refIn is Ref of path found from the confined directory above it,
// following no symlink.
func (f *FS) refIn(path string) (*InodeRef, error) {
	var ref *InodeRef
	err := f.inDir(path, func(dir *InodeRef, name string) error {
		var err error
		ref, _, err = dir.lookup(name, C.CEPH_STATX_INO) // as Ref: no cap, no request
		return err
	})
	return ref, err
}
