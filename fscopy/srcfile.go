package fscopy

import "github.com/radoscp/radoscp/cephfs"

// srcFile is the regular file a copy reads: by its path at head, through
// an open handle in a snapshot. Every call by a path under DIR/.snap/NAME
// walks it afresh, a lookupsnap and a getattr at the MDS each (libcephfs
// keeps no dentry of a snapshot directory: 2 requests a call, and a
// copy's stat, layout and xattrs made five calls a file), while an open
// file's are answered by the client. At head a call by path costs no
// request while this client holds the file's caps, and is kept.
type srcFile struct {
	path string
	fs   *cephfs.FS
	f    *cephfs.File // nil at head
}

// openSource is src to read, opened (not following a final symlink) when
// it is in a snapshot.
func (c *Copier) openSource(src string) (*srcFile, error) {
	s := &srcFile{path: src, fs: c.fs}
	if !inSnapshot(src, c.snapDir()) {
		return s, nil
	}
	f, err := c.fs.OpenReadNoFollow(src)
	if err != nil {
		return nil, err
	}
	s.f = f
	return s, nil
}

func (s *srcFile) close() {
	if s.f != nil {
		s.f.Close()
	}
}

func (s *srcFile) stat() (cephfs.Stat, error) {
	if s.f != nil {
		return s.f.Stat()
	}
	return s.fs.Lstat(s.path)
}

// cachedLayout is cephfs.FS.CachedLayout's striping and pool.
func (s *srcFile) cachedLayout() (cephfs.FileLayout, error) {
	var fl cephfs.FileLayout
	var err error
	if s.f != nil {
		fl.Layout, fl.Pool, err = s.f.CachedLayout()
	} else {
		fl.Layout, fl.Pool, err = s.fs.CachedLayout(s.path)
	}
	return fl, err
}

func (s *srcFile) layout() (cephfs.FileLayout, error) {
	if s.f != nil {
		return s.f.Layout()
	}
	return s.fs.Layout(s.path)
}

// xattrs are the xattrs a copy keeps (cephfs.FS.Xattrs).
func (s *srcFile) xattrs() (map[string][]byte, error) {
	if s.f != nil {
		return s.f.Xattrs()
	}
	return s.fs.Xattrs(s.path)
}
