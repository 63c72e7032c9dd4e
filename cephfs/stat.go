package cephfs

import (
	"io/fs"
	"syscall"
	"time"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/store"
)

// Stat is what radoscp reads of an inode.
type Stat struct {
	Ino                 uint64
	Mode                uint32 // type and permission bits, as in stat(2)
	UID, GID            uint32
	Nlink               uint32
	Size                uint64
	Atime, Mtime, Ctime time.Time
	// Snap is the id of the snapshot the inode belongs to (statx's
	// device number, the inode's snapid), 0 for the live file system.
	// A snapshot's inode has the head's number: its objects are the
	// head's, read at Snap.
	Snap uint64
	// Rdev is a device's number as Ceph keeps it: the Linux kernel's
	// own form, major<<20 | minor (ceph-fuse and the kernel client
	// convert it to and from stat(2)'s); see Device.
	Rdev uint64
}

// IsDir, IsRegular and IsSymlink classify the inode.
func (s Stat) IsDir() bool     { return s.Mode&syscall.S_IFMT == syscall.S_IFDIR }
func (s Stat) IsRegular() bool { return s.Mode&syscall.S_IFMT == syscall.S_IFREG }
func (s Stat) IsSymlink() bool { return s.Mode&syscall.S_IFMT == syscall.S_IFLNK }

// IsSpecial says whether the inode is a FIFO, a socket or a device: a
// name and metadata, no data.
func (s Stat) IsSpecial() bool {
	switch s.Mode & syscall.S_IFMT {
	case syscall.S_IFIFO, syscall.S_IFSOCK, syscall.S_IFCHR, syscall.S_IFBLK:
		return true
	}
	return false
}

// Device is a device's major and minor numbers.
func (s Stat) Device() (major, minor uint64) { return s.Rdev >> 20, s.Rdev & (1<<20 - 1) }

// Perm is the permission bits with setuid, setgid and sticky.
func (s Stat) Perm() uint32 { return s.Mode & 0o7777 }

// Type names the inode's type for messages.
func (s Stat) Type() string {
	switch s.Mode & syscall.S_IFMT {
	case syscall.S_IFREG:
		return "regular file"
	case syscall.S_IFDIR:
		return "directory"
	case syscall.S_IFLNK:
		return "symlink"
	case syscall.S_IFIFO:
		return "fifo"
	case syscall.S_IFSOCK:
		return "socket"
	case syscall.S_IFCHR:
		return "character device"
	case syscall.S_IFBLK:
		return "block device"
	}
	return "unknown file type"
}

// Same reports whether s and o describe the same content and metadata
// state: same inode, size, mtime and ctime. A write, truncate or setattr
// between the two stats changes ctime.
func (s Stat) Same(o Stat) bool {
	return s.Ino == o.Ino && s.Snap == o.Snap && s.Size == o.Size && s.Mtime.Equal(o.Mtime) && s.Ctime.Equal(o.Ctime)
}

const statMask = gocephfs.StatxBasicStats

// noSnap is CEPH_NOSNAP, the snapid of live inodes.
const noSnap = 0xfffffffffffffffe

func fromStatx(st *gocephfs.CephStatx) Stat {
	s := Stat{
		Ino: uint64(st.Inode), Mode: uint32(st.Mode), UID: st.Uid, GID: st.Gid, Nlink: st.Nlink, Size: st.Size,
		Atime: timespec(st.Atime), Mtime: timespec(st.Mtime), Ctime: timespec(st.Ctime), Rdev: st.Rdev,
	}
	if st.Dev != noSnap {
		s.Snap = st.Dev
	}
	return s
}

func timespec(t gocephfs.Timespec) time.Time { return time.Unix(t.Sec, t.Nsec) }

// Lstat stats path without following a final symlink. A missing path
// gives an error matching fs.ErrNotExist and store.ErrNotFound.
func (f *FS) Lstat(path string) (st Stat, err error) {
	if f.at(path, func(dir *File, rel string) { st, err = dir.statAt(rel, false) }) {
		return st, err
	}
	stx, err := f.m.Statx(path, statMask, gocephfs.AtSymlinkNofollow)
	if err != nil {
		return Stat{}, pathError("stat", path, err)
	}
	return fromStatx(stx), nil
}

// Stat stats path, following symlinks.
func (f *FS) Stat(path string) (st Stat, err error) {
	if f.at(path, func(dir *File, rel string) { st, err = dir.statAt(rel, true) }) {
		return st, err
	}
	stx, err := f.m.Statx(path, statMask, 0)
	if err != nil {
		return Stat{}, pathError("stat", path, err)
	}
	return fromStatx(stx), nil
}

// pathError wraps a libcephfs error with the operation and path, keeping
// its errno (errors.Is(err, store.ErrNotFound), fs.ErrNotExist).
func pathError(op, path string, err error) error {
	if err == nil {
		return nil
	}
	return &PathError{err: rados.ErrnoError(op, "cephfs:"+path, err)}
}

// PathError is a failed file system operation; Unwrap gives the
// *store.Error carrying the errno.
type PathError struct{ err error }

func (e *PathError) Error() string { return e.err.Error() }
func (e *PathError) Unwrap() error { return e.err }

// Is lets errors.Is(err, fs.ErrNotExist) and fs.ErrExist work.
func (e *PathError) Is(target error) bool {
	switch target {
	case fs.ErrNotExist:
		return store.ErrnoOf(e.err) == syscall.ENOENT
	case fs.ErrExist:
		return store.ErrnoOf(e.err) == syscall.EEXIST
	}
	return false
}
