package cephfs

/*
#cgo LDFLAGS: -lcephfs
#cgo CPPFLAGS: -D_FILE_OFFSET_BITS=64
#include <stdlib.h>
#include <fcntl.h>
#include <dirent.h>
#include <cephfs/libcephfs.h>
*/
import "C"

import (
	gopath "path"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	gocephfs "github.com/ceph/go-ceph/cephfs"
)

// Paths below a held root are walked from the root's open descriptor,
// not from the mount's root. This is for a snapshot, DIR/.snap/NAME:
// libcephfs keeps no dentry of a snapshot in the snapshot directory, so
// every walk through one asks the MDS twice (a getattr of the snapshot
// directory for the permission check, and a lookupsnap of NAME), while
// the names below it are answered from the client's cache once listed
// (a snapshot's entries cannot change).

// heldRoots are the directories held open for the paths below them.
type heldRoots struct {
	mu    sync.RWMutex // held for reading by each call walking from a root
	roots map[string]*heldRoot
}

type heldRoot struct {
	dir   *File
	users int // HoldRoot calls not released yet
}

// HoldRoot opens directory root, not following a final symlink, and
// until release walks every path below it from there (Lstat, Stat,
// ReadDir, Xattrs, GetXattr, CachedLayout, OpenReadNoFollow): whatever
// the name root stands for meanwhile, they find the directory opened
// now, whose stat is returned. Holding a root twice takes it twice; the
// last release closes it, once the calls walking from it are done.
func (f *FS) HoldRoot(root string) (st Stat, release func(), err error) {
	root = gopath.Clean(root)
	h := &f.held
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.roots[root]
	if r == nil {
		dir, err := f.openPath(root, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
		if err != nil {
			return Stat{}, nil, err
		}
		if h.roots == nil {
			h.roots = map[string]*heldRoot{}
		}
		r = &heldRoot{dir: dir}
		h.roots[root] = r
	}
	if st, err = r.dir.Stat(); err != nil {
		if r.users == 0 {
			r.dir.Close()
			delete(h.roots, root)
		}
		return Stat{}, nil, err
	}
	r.users++
	var once sync.Once
	return st, func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			if r.users--; r.users == 0 {
				r.dir.Close()
				delete(h.roots, root)
			}
		})
	}, nil
}

// at runs call with the held root path is below (or is) and path
// relative to it ("." for the root itself), and says so; false when path
// is below no held root.
func (f *FS) at(path string, call func(dir *File, rel string)) bool {
	h := &f.held
	h.mu.RLock()
	defer h.mu.RUnlock()
	if len(h.roots) == 0 {
		return false
	}
	path = gopath.Clean(path)
	for root, r := range h.roots {
		if path == root {
			call(r.dir, ".")
			return true
		}
		if rel, ok := strings.CutPrefix(path, root+"/"); ok {
			call(r.dir, rel)
			return true
		}
	}
	return false
}

// statAt stats rel, a path below the open directory, following a final
// symlink or not.
//
// Implements ceph_statxat.
func (fl *File) statAt(rel string, follow bool) (Stat, error) {
	var flags C.uint = C.AT_SYMLINK_NOFOLLOW
	if follow {
		flags = 0
	}
	crel := C.CString(rel)
	defer C.free(unsafe.Pointer(crel))
	var stx C.struct_ceph_statx
	cm := mountPointer(fl.fs.m)
	if ret := C.ceph_statxat(cm, fileDescriptor(fl.f), crel, &stx, C.uint(statMask), flags); ret < 0 {
		return Stat{}, pathError("stat", gopath.Join(fl.path, rel), errnoErr(int(ret)))
	}
	return fromCStatx(&stx), nil
}

// openAt opens rel, a path below the open directory, with flags.
//
// Implements ceph_openat.
func (fl *File) openAt(rel string, flags C.int) (*File, error) {
	crel := C.CString(rel)
	defer C.free(unsafe.Pointer(crel))
	p := gopath.Join(fl.path, rel)
	fd := C.ceph_openat(mountPointer(fl.fs.m), fileDescriptor(fl.f), crel, flags, 0)
	if fd < 0 {
		return nil, pathError("open", p, errnoErr(int(fd)))
	}
	return fl.fs.newFile(goFile(fl.fs.m, fd), p)
}

// readDir lists the directory rel below the open directory, as
// FS.readDir lists a path.
//
// Implements ceph_openat, ceph_fdopendir, ceph_seekdir,
// ceph_readdirplus_r and ceph_closedir.
func (fl *File) readDirAt(rel string) ([]Entry, error) {
	d, err := fl.openAt(rel, C.O_RDONLY|C.O_DIRECTORY|C.O_NOFOLLOW)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	cm := mountPointer(fl.fs.m)
	var dirp *C.struct_ceph_dir_result
	if ret := C.ceph_fdopendir(cm, fileDescriptor(d.f), &dirp); ret < 0 {
		return nil, pathError("open directory", d.path, errnoErr(int(ret)))
	}
	defer C.ceph_closedir(cm, dirp)
	fl.fs.listings.Add(1)
	C.ceph_seekdir(cm, dirp, firstEntry)
	return readEntries(cm, dirp, d.path, nil)
}

// onFileAt runs call on path opened from the held root it is below, and
// says so; false when path is below no held root or cannot be opened
// read-only without following it (a symlink), for the caller to go by
// the path.
func (f *FS) onFileAt(path string, call func(*File)) (done bool) {
	f.at(path, func(dir *File, rel string) { done = dir.onFileAt(rel, call) })
	return done
}

// onFileAt runs call on rel below the open directory, opened read-only
// not following a final symlink; it reports false, and call is not run,
// when rel cannot be opened so (a symlink: ELOOP), for the caller to
// fall back to the path.
func (fl *File) onFileAt(rel string, call func(*File)) bool {
	f, err := fl.openAt(rel, C.O_RDONLY|C.O_NOFOLLOW)
	if err != nil {
		return false
	}
	defer f.Close()
	call(f)
	return true
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
