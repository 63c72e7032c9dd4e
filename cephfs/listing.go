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
	"sort"
	"time"
	"unsafe"
)

// Entry is one directory entry.
type Entry struct {
	Name string
	Stat Stat
}

// ReadDir lists the directory at path, without "." and "..", sorted by
// name, with each entry lstat'ed (see readDir).
func (f *FS) ReadDir(path string) (entries []Entry, err error) {
	if f.below(path) {
		return f.readDirIn(path)
	}
	if f.at(path, func(dir *File, rel string) { entries, err = dir.readDirAt(rel) }) {
		return entries, err
	}
	return f.readDir(path)
}

// firstEntry is the directory offset of the first entry after "." and
// "..", where libcephfs's own listing goes on after them.
const firstEntry = 2

// readDir lists the directory at path from its first entry past "." and
// "..", each entry stat'ed as libcephfs's readdirplus does. Seeking past
// them saves two requests to the MDS per listing: for "." and ".."
// libcephfs asks the MDS for the directory's and its parent's recursive
// statistics (which no cap covers), and the caller drops both entries.
//
// Implements ceph_opendir, ceph_seekdir, ceph_readdirplus_r and
// ceph_closedir: go-ceph wraps no seekdir.
func (f *FS) readDir(path string) ([]Entry, error) {
	cm := mountPointer(f.m)
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var dirp *C.struct_ceph_dir_result
	if ret := C.ceph_opendir(cm, cpath, &dirp); ret < 0 {
		return nil, pathError("open directory", path, errnoErr(int(ret)))
	}
	defer C.ceph_closedir(cm, dirp)
	f.listings.Add(1)
	C.ceph_seekdir(cm, dirp, firstEntry)
	return readEntries(cm, dirp, path, nil)
}

// readEntries reads the open directory dirp (of path, for messages) to
// its end, each entry stat'ed, without "." and "..", sorted by name.
// With hold, each entry's inode is taken from the listing and handed to
// hold, which keeps the reference (true) or has it dropped (false).
//
// Implements ceph_readdirplus_r (and ceph_ll_put with hold).
func readEntries(cm *C.struct_ceph_mount_info, dirp *C.struct_ceph_dir_result, path string,
	hold func(name string, st Stat, in *C.struct_Inode) bool) ([]Entry, error) {
	var out []Entry
	for {
		var de C.struct_dirent
		var stx C.struct_ceph_statx
		var in *C.struct_Inode
		inp := &in
		if hold == nil {
			inp = nil
		}
		ret := C.ceph_readdirplus_r(cm, dirp, &de, &stx, C.CEPH_STATX_BASIC_STATS, C.AT_SYMLINK_NOFOLLOW, inp)
		if ret == 0 {
			break
		}
		if ret < 0 {
			return nil, pathError("read directory", path, errnoErr(int(ret)))
		}
		name := C.GoString(&de.d_name[0])
		st := fromCStatx(&stx)
		dot := name == "." || name == ".."
		if hold != nil && (dot || !hold(name, st, in)) {
			C.ceph_ll_put(cm, in)
		}
		if !dot {
			out = append(out, Entry{Name: name, Stat: st})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func fromCStatx(stx *C.struct_ceph_statx) Stat {
	s := Stat{
		Ino: uint64(stx.stx_ino), Mode: uint32(stx.stx_mode), UID: uint32(stx.stx_uid), GID: uint32(stx.stx_gid),
		Nlink: uint32(stx.stx_nlink), Size: uint64(stx.stx_size),
		Atime: cTime(stx.stx_atime), Mtime: cTime(stx.stx_mtime), Ctime: cTime(stx.stx_ctime),
		Rdev: uint64(stx.stx_rdev),
	}
	if dev := uint64(stx.stx_dev); dev != noSnap {
		s.Snap = dev
	}
	return s
}

func cTime(t C.struct_timespec) time.Time { return time.Unix(int64(t.tv_sec), int64(t.tv_nsec)) }
