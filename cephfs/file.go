package cephfs

import (
	"errors"
	"io"
	"os"
	"syscall"

	gocephfs "github.com/ceph/go-ceph/cephfs"
)

// File is an open CephFS file.
type File struct {
	fs   *FS
	f    *gocephfs.File
	path string
	ino  uint64
}

// CreateExclusive creates path, which must not exist, for writing with
// permissions perm. A new inode has never been truncated: its truncate
// generation is the initial one.
func (f *FS) CreateExclusive(path string, perm uint32) (*File, error) {
	if f.below(path) {
		return f.createIn(path, os.O_CREATE|os.O_EXCL|os.O_RDWR, perm)
	}
	return f.openPath(path, os.O_CREATE|os.O_EXCL|os.O_RDWR, perm)
}

// OpenWrite opens an existing file for reading and writing.
func (f *FS) OpenWrite(path string) (*File, error) { return f.openChecked(path, os.O_RDWR) }

// OpenWriteNoFollow opens an existing file for reading and writing, not
// following a final symlink (ELOOP).
func (f *FS) OpenWriteNoFollow(path string) (*File, error) {
	return f.openChecked(path, os.O_RDWR|syscall.O_NOFOLLOW)
}

// OpenReadNoFollow opens an existing file for reading, not following a
// final symlink (ELOOP).
func (f *FS) OpenReadNoFollow(path string) (file *File, err error) {
	if f.at(path, func(dir *File, rel string) { file, err = dir.openAt(rel, syscall.O_RDONLY|syscall.O_NOFOLLOW) }) {
		return file, err
	}
	return f.openChecked(path, os.O_RDONLY|syscall.O_NOFOLLOW)
}

// OpenDir opens the directory at path (not following a final symlink),
// for a lock on it (TryLock) and its xattrs.
func (f *FS) OpenDir(path string) (*File, error) {
	return f.openChecked(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW)
}

// OpenRead opens an existing file for reading.
func (f *FS) OpenRead(path string) (*File, error) { return f.openChecked(path, os.O_RDONLY) }

// openChecked opens an existing path: below a confined directory
// (confine.go), only if the file opened is the one found there following
// no symlink (so a final symlink gives EXDEV there, whatever the flags).
func (f *FS) openChecked(path string, flags int) (*File, error) {
	if f.below(path) {
		return f.openIn(path, flags)
	}
	return f.openPath(path, flags, 0)
}

// openPath opens path as libcephfs resolves it.
func (f *FS) openPath(path string, flags int, perm uint32) (*File, error) {
	gf, err := f.m.Open(path, flags, perm)
	if err != nil {
		return nil, pathError("open", path, err)
	}
	return f.newFile(gf, path)
}

// newFile is the File of gf, opened by path, with its inode number; gf
// is closed if the file cannot be stat'ed.
func (f *FS) newFile(gf *gocephfs.File, path string) (*File, error) {
	file := &File{fs: f, f: gf, path: path}
	st, err := file.Stat()
	if err != nil {
		gf.Close()
		return nil, err
	}
	file.ino = st.Ino
	return file, nil
}

// Path is the path the file was opened by.
func (fl *File) Path() string { return fl.path }

// Ino is the file's inode number, which names its objects.
func (fl *File) Ino() uint64 { return fl.ino }

// Stat stats the open file.
func (fl *File) Stat() (Stat, error) {
	st, err := fl.f.Fstatx(statMask, 0)
	if err != nil {
		return Stat{}, pathError("stat", fl.path, err)
	}
	return fromStatx(st), nil
}

// Size is the file's size as the MDS and this client know it.
func (fl *File) Size() (uint64, error) {
	st, err := fl.Stat()
	return st.Size, err
}

// WriteAt writes all of p at off.
func (fl *File) WriteAt(p []byte, off uint64) error {
	for len(p) > 0 {
		n, err := fl.f.WriteAt(p, int64(off))
		if err != nil {
			return pathError("write", fl.path, err)
		}
		p, off = p[n:], off+uint64(n)
	}
	return nil
}

// ReadAt reads into p from off; it returns fewer bytes only at EOF.
func (fl *File) ReadAt(p []byte, off uint64) (int, error) {
	total := 0
	for total < len(p) {
		n, err := fl.f.ReadAt(p[total:], int64(off)+int64(total))
		if errors.Is(err, io.EOF) || (err == nil && n == 0) {
			break
		}
		if err != nil {
			return total, pathError("read", fl.path, err)
		}
		total += n
	}
	return total, nil
}

// Chmod sets the open file's permission bits (with setuid, setgid and
// sticky). On a file this client holds exclusive caps on (one it just
// created) the client keeps the new mode as a dirty capability, sent in a
// cap flush, not in a request of its own (see SetAttrs); another client's
// stat makes the MDS recall it first, so it sees the new mode.
func (fl *File) Chmod(mode uint32) error {
	return pathError("chmod", fl.path, fl.f.Fchmod(mode&0o7777))
}

// Fsync makes the file's data and metadata durable.
func (fl *File) Fsync() error { return pathError("fsync", fl.path, fl.f.Fsync(gocephfs.SyncAll)) }

// SetXattr, GetXattr and RemoveXattr work on the open file.
func (fl *File) SetXattr(name string, value []byte) error {
	return pathError("set xattr "+name, fl.path, fl.f.SetXattr(name, value, 0))
}

func (fl *File) GetXattr(name string) ([]byte, error) {
	v, err := fl.f.GetXattr(name)
	if err != nil {
		return nil, pathError("get xattr "+name, fl.path, err)
	}
	return v, nil
}

func (fl *File) RemoveXattr(name string) error {
	return pathError("remove xattr "+name, fl.path, fl.f.RemoveXattr(name))
}

// SetLayout sets the layout of the file, which must be empty and never
// written.
func (fl *File) SetLayout(l FileLayout) error {
	for _, x := range LayoutXattrs("ceph.file.layout", l.String()) {
		if err := fl.SetXattr(x.Name, []byte(x.Value)); err != nil {
			return err
		}
	}
	return nil
}

// Layout reads the file's layout.
func (fl *File) Layout() (FileLayout, error) {
	v, err := fl.GetXattr("ceph.file.layout")
	if err != nil {
		return FileLayout{}, err
	}
	return parseFileLayout(string(v))
}

// Close closes the file.
func (fl *File) Close() error { return pathError("close", fl.path, fl.f.Close()) }
