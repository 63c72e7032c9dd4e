package fscopy_test

import (
	"bytes"
	"context"
	"os"
	"path"
	"testing"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/test"
)

// env is a connection and mount on the test cluster's CephFS, a directory
// of the test's own, and a second, independent libcephfs client.
type env struct {
	conn  *rados.Conn
	fs    *cephfs.FS
	other *gocephfs.MountInfo
	dir   string
	// snapper, once a test asks for snapshots, is a third client that
	// makes and removes them.
	snapper *gocephfs.MountInfo
	removed map[string]bool // snapshots removed by removeSnapshot
}

func newEnv(t *testing.T) *env {
	t.Helper()
	conn, fs := test.MountFS(t)
	other := test.Mount(t)
	e := &env{conn: conn, fs: fs, other: other, dir: "/" + test.UniqueName(t)}
	if err := fs.Mkdir(e.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	test.RemoveTree(t, other, e.dir)
	return e
}

// copier makes a Copier on e's mount; its files settle before t's
// cleanups unmount it.
func (e *env) copier(t *testing.T, o fscopy.Options, reports *[]fscopy.Report) *fscopy.Copier {
	return e.copierWith(t, o, reports, fscopy.Hooks{})
}

// copierWith is copier with h installed.
func (e *env) copierWith(t *testing.T, o fscopy.Options, reports *[]fscopy.Report, h fscopy.Hooks) *fscopy.Copier {
	c := fscopy.NewWithHooks(radoscp.NewEngine(nil, nil), e.conn, e.fs, o, func(r fscopy.Report) {
		if r.Err != nil {
			t.Logf("%s: %v", r.Src, r.Err)
		}
		if reports != nil {
			*reports = append(*reports, r)
		}
	}, h)
	t.Cleanup(func() { fscopy.WaitSettled(c) })
	return c
}

// write creates p through the other client with layout l (nil for the
// directory's), and writes each extent of data at its offset.
func (e *env) write(t *testing.T, p string, l *layout.Layout, mode uint32, extents map[uint64][]byte) {
	t.Helper()
	f, err := e.other.Open(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if l != nil {
		if err := e.other.SetXattr(p, "ceph.file.layout", []byte(l.String()), 0); err != nil {
			t.Fatalf("set layout %s: %v", l, err)
		}
	}
	for off, b := range extents {
		if len(b) == 0 {
			continue // go-ceph cannot write nothing
		}
		if _, err := f.WriteAt(b, int64(off)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Fsync(gocephfs.SyncAll); err != nil {
		t.Fatal(err)
	}
}

// read reads all of p through the other client.
func (e *env) read(t *testing.T, p string) []byte {
	t.Helper()
	data, ok := test.ReadFile(t, e.other, p)
	if !ok {
		t.Fatalf("%s does not exist", p)
	}
	return data
}

func assertEqual(t *testing.T, what string, got, want []byte) {
	t.Helper()
	test.Equal(t, what, got, want)
}

// assertSameMeta checks what cp -a keeps: mode, owner, mtime, atime and
// xattrs.
func (e *env) assertSameMeta(t *testing.T, src, dst string) {
	t.Helper()
	s, err := e.fs.Lstat(src)
	if err != nil {
		t.Fatal(err)
	}
	d, err := e.fs.Lstat(dst)
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode != d.Mode || s.UID != d.UID || s.GID != d.GID || !s.Mtime.Equal(d.Mtime) || !s.Atime.Equal(d.Atime) {
		t.Fatalf("%s: mode %o uid %d gid %d mtime %v atime %v; source %s: mode %o uid %d gid %d mtime %v atime %v",
			dst, d.Mode, d.UID, d.GID, d.Mtime, d.Atime, src, s.Mode, s.UID, s.GID, s.Mtime, s.Atime)
	}
	sx, err := e.fs.Xattrs(src)
	if err != nil {
		t.Fatal(err)
	}
	dx, err := e.fs.Xattrs(dst)
	if err != nil {
		t.Fatal(err)
	}
	if len(sx) != len(dx) {
		t.Fatalf("%s: xattrs %v, source has %v", dst, dx, sx)
	}
	for k, v := range sx {
		if !bytes.Equal(dx[k], v) {
			t.Fatalf("%s: xattr %s = %q, source has %q", dst, k, dx[k], v)
		}
	}
}

func (e *env) path(elem ...string) string { return path.Join(append([]string{e.dir}, elem...)...) }

var ctx = context.Background()

func attrsOf(st cephfs.Stat) cephfs.Attrs {
	return cephfs.Attrs{Mode: st.Perm(), UID: st.UID, GID: st.GID, Atime: st.Atime, Mtime: st.Mtime}
}

func copyOpts(window int) radoscp.Options { return radoscp.Options{Window: window} }

// entriesBelow lists, through ceph-fuse, every entry below dir: its path,
// inode, links, owner, mode and times, and a file's size; not a
// directory's, which is its recursive bytes, propagated by the MDS
// lazily (a listing taken right after the tree was made can change
// with no write).
func entriesBelow(t *testing.T, dir string) string {
	t.Helper()
	return test.Run(t, "find", dir, "-mindepth", "1", "-type", "f", "-printf", "%p %i %n %u %m %s %T@ %C@\n") +
		test.Run(t, "find", dir, "-mindepth", "1", "!", "-type", "f", "-printf", "%p %i %n %u %m %T@ %C@\n")
}
