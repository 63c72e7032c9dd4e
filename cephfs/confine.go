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
	gopath "path"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// Writes, listings and opens below a confined directory follow no
// symlink. A path resolved
// by name at each write follows a directory that another client swapped
// for a symlink since the copy listed it, and the write lands wherever
// the symlink points: a file created, renamed over, chowned or removed
// outside the tree, with this client's rights. Below a confined
// directory, every write finds its directory from the confined
// directory's inode, one name at a time (ceph_ll_lookup), and refuses a
// name that is not a directory (ENOTDIR) or is a symlink (ELOOP); the
// write itself is then made on that directory's inode (ceph_ll_mkdir,
// ceph_ll_rename, ...), or, for an open, checked against it.
//
// Looking a name up costs what the path walk inside libcephfs costs: a
// cached dentry is answered by the client, as there.

// confinement is the directories confined, by path.
type confinement struct {
	mu      sync.RWMutex
	roots   map[string]*confinedRoot
	snapdir string // client_snapdir: paths through it are not confined
}

type confinedRoot struct {
	ref   *InodeRef
	users int            // Confine calls not released yet
	inUse sync.WaitGroup // writes walking from ref: it is released after them
}

// Confine confines every write, listing and open below dir (a path
// under it; dir's own attributes and xattrs are set on the inode
// resolved now, its entry in its parent is as before) from now until
// release is called: see above. Paths through a snapshot directory are
// not confined.
// dir is resolved once, now, following symlinks, as the caller named
// it. Confining a directory twice takes it twice.
//
// Implements ceph_ll_walk.
func (f *FS) Confine(dir string) (release func(), err error) {
	dir = gopath.Clean(dir)
	c := &f.confined
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.roots[dir]
	if r == nil {
		ref, mode, err := f.walkMode(dir, 0, C.CEPH_STATX_INO|C.CEPH_STATX_MODE)
		if err != nil {
			return nil, err
		}
		if mode&syscall.S_IFMT != syscall.S_IFDIR {
			ref.Release()
			return nil, pathError("confine", dir, errnoErr(-int(syscall.ENOTDIR)))
		}
		if c.roots == nil {
			c.roots = map[string]*confinedRoot{}
			c.snapdir = ".snap"
			if v, err := f.m.GetConfigOption("client_snapdir"); err == nil && v != "" {
				c.snapdir = v
			}
		}
		r = &confinedRoot{ref: ref}
		c.roots[dir] = r
	}
	r.users++
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			r.users--
			last := r.users == 0
			if last {
				delete(c.roots, dir)
			}
			c.mu.Unlock()
			if last {
				r.inUse.Wait()
				r.ref.Release()
			}
		})
	}, nil
}

// rootAbove is the deepest confined directory strictly above path, and
// the rest of path below it; nil when path is below none, or goes through
// a snapshot directory below it: a snapshot cannot change, and libcephfs
// caches no dentry inside one, so each name looked up there again would
// be a request to the MDS. c.mu is held.
func (c *confinement) rootAbove(path string) (*confinedRoot, string) {
	var best *confinedRoot
	var rest string
	bestLen := -1
	for dir, r := range c.roots {
		var rel string
		switch {
		case dir == "/" && len(path) > 1 && path[0] == '/':
			rel = path[1:]
		case strings.HasPrefix(path, dir+"/"):
			rel = path[len(dir)+1:]
		default:
			continue
		}
		if len(dir) > bestLen {
			best, rest, bestLen = r, rel, len(dir)
		}
	}
	if best != nil && c.snapdir != "" && slices.Contains(strings.Split(rest, "/"), c.snapdir) {
		return nil, ""
	}
	return best, rest
}

// below reports whether path is below a confined directory.
func (f *FS) below(path string) bool {
	c := &f.confined
	c.mu.RLock()
	defer c.mu.RUnlock()
	if len(c.roots) == 0 {
		return false
	}
	r, _ := c.rootAbove(gopath.Clean(path))
	return r != nil
}

// confinedItself reports whether path is a confined directory.
func (f *FS) confinedItself(path string) bool {
	c := &f.confined
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.roots[gopath.Clean(path)] != nil
}

// use finds the deepest confined directory above path, as rootAbove, and
// holds its reference for a write (inUse) until the caller is done.
func (c *confinement) use(path string) (*confinedRoot, string) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, rel := c.rootAbove(path)
	if r != nil {
		r.inUse.Add(1)
	}
	return r, rel
}

// inDir runs write on the directory path is in, and path's name: the
// directory found from the confined directory above path, following no
// symlink, or, when no confined directory is above path, looked up by
// path as libcephfs would. The directory's reference is released after.
func (f *FS) inDir(path string, write func(dir *InodeRef, name string) error) error {
	path = gopath.Clean(path)
	root, rel := f.confined.use(path)
	if root != nil {
		defer root.inUse.Done()
	}
	var dir *InodeRef
	var err error
	if root == nil {
		dir, err = f.walk(gopath.Dir(path), 0)
	} else {
		dir, err = root.walkDir(gopath.Dir(rel))
	}
	if err != nil {
		return err
	}
	if dir != root.refOrNil() {
		defer dir.Release()
	}
	return write(dir, gopath.Base(path))
}

func (r *confinedRoot) refOrNil() *InodeRef {
	if r == nil {
		return nil
	}
	return r.ref
}

// walkDir takes a reference on directory rel below the root, one name at
// a time, following no symlink. rel "." is the root itself, whose
// reference is not to be released.
func (r *confinedRoot) walkDir(rel string) (*InodeRef, error) {
	cur := r.ref
	if rel == "." {
		return cur, nil
	}
	for _, name := range strings.Split(rel, "/") {
		next, err := cur.lookupDir(name)
		if cur != r.ref {
			cur.Release()
		}
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// lookupDir takes a reference on directory name of the referenced
// directory: a symlink gives ELOOP, not followed, and anything else that
// is not a directory ENOTDIR. It asks only for what the path walk inside
// libcephfs asks of a directory on the way (mode, under the auth cap).
func (r *InodeRef) lookupDir(name string) (*InodeRef, error) {
	next, mode, err := r.lookupEntry(name)
	if err != nil {
		return nil, err
	}
	switch mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return next, nil
	case syscall.S_IFLNK:
		next.Release()
		return nil, pathError("look up (a symlink below the copy's root is not followed)", next.path, errnoErr(-int(syscall.ELOOP)))
	default:
		next.Release()
		return nil, pathError("look up", next.path, errnoErr(-int(syscall.ENOTDIR)))
	}
}

// lookupEntry takes a reference on entry name of the referenced
// directory, not following a symlink, with its mode.
func (r *InodeRef) lookupEntry(name string) (*InodeRef, uint32, error) {
	next, stx, err := r.lookup(name, C.CEPH_STATX_INO|C.CEPH_STATX_MODE)
	return next, uint32(stx.stx_mode), err
}

// onInode runs write on the inode at path, not following a final
// symlink (nor, below a confined directory, any other): a confined
// directory itself is its reference.
func (f *FS) onInode(path string, write func(in *InodeRef, mode uint32) error) error {
	path = gopath.Clean(path)
	c := &f.confined
	c.mu.RLock()
	r := c.roots[path]
	if r != nil {
		r.inUse.Add(1)
	}
	c.mu.RUnlock()
	if r != nil {
		defer r.inUse.Done()
		return write(r.ref, syscall.S_IFDIR)
	}
	return f.inDir(path, func(dir *InodeRef, name string) error {
		in, mode, err := dir.lookupEntry(name)
		if err != nil {
			return err
		}
		defer in.Release()
		return write(in, mode)
	})
}

// walk takes a reference on the inode at path, following symlinks on
// the way; flags C.AT_SYMLINK_NOFOLLOW leaves a final one.
//
// Implements ceph_ll_walk.
func (f *FS) walk(path string, flags C.uint) (*InodeRef, error) {
	ref, _, err := f.walkMode(path, flags, C.CEPH_STATX_INO)
	return ref, err
}

// walkMode is walk asking for want (a mode is under the auth cap), and
// giving the mode if asked.
func (f *FS) walkMode(path string, flags, want C.uint) (*InodeRef, uint32, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	cm := mountPointer(f.m)
	var in *C.struct_Inode
	var stx C.struct_ceph_statx
	ret := C.ceph_ll_walk(cm, cpath, &in, &stx, want, flags, C.ceph_mount_perms(cm))
	if ret < 0 {
		return nil, 0, pathError("look up", path, errnoErr(int(ret)))
	}
	return &InodeRef{fs: f, in: in, path: path, ino: uint64(stx.stx_ino)}, uint32(stx.stx_mode), nil
}
