package fscopy_test

import (
	"fmt"
	"os"
	"path"
	"syscall"
	"testing"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/test"
)

// A listing (cephfs.ReadDir) starts past "." and "..": libcephfs's own
// listing also asks the MDS for the recursive statistics of the directory
// and its parent, which no cap covers, two getattrs per listing. A new
// client lists a directory no other client holds caps in (its writer has
// unmounted) with two getattrs fewer than another new client listing it
// through go-ceph, counted by the MDS. Every entry is there, with its
// type, inode and size, as ceph-fuse lists them.
func TestReadDirSkipsDots(t *testing.T) {
	e := newEnv(t)
	dir := e.path("big")
	w := test.Mount(t)
	if err := w.MakeDir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := w.MakeDir(dir+"/sub", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := w.Symlink("sub", dir+"/link"); err != nil {
		t.Fatal(err)
	}
	const files = 1500
	for i := range files {
		test.WriteFile(t, w, fmt.Sprintf("%s/f%04d", dir, i), test.RandomData(uint64(i), i%7))
	}
	w.Unmount()

	_, fs := test.MountFS(t)
	before := test.MDSRequests(t)
	entries, err := fs.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	ours := test.RequestsSince(before, test.MDSRequests(t))
	// The same listing through go-ceph (libcephfs's readdirplus from the
	// start), by another new client.
	g := test.Mount(t)
	before = test.MDSRequests(t)
	d, err := g.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		de, err := d.ReadDirPlus(gocephfs.StatxBasicStats, gocephfs.AtSymlinkNofollow)
		if err != nil {
			t.Fatal(err)
		}
		if de == nil {
			break
		}
		n++
	}
	d.Close()
	theirs := test.RequestsSince(before, test.MDSRequests(t))
	t.Logf("MDS requests for the listing: %v; through go-ceph: %v (%d entries)", ours, theirs, n)
	if ours["getattr"]+2 != theirs["getattr"] || ours["readdir"] != theirs["readdir"] {
		t.Errorf("the listing made %v requests, go-ceph's %v: want two getattrs fewer and as many readdirs", ours, theirs)
	}

	fuse := test.FuseMount(t) + dir
	want, err := os.ReadDir(fuse)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) || len(want) != files+2 {
		t.Fatalf("listed %d entries, ceph-fuse %d, made %d", len(entries), len(want), files+2)
	}
	for i, de := range want {
		got := entries[i]
		info, err := os.Lstat(path.Join(fuse, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		st := info.Sys().(*syscall.Stat_t)
		if got.Name != de.Name() || got.Stat.Ino != st.Ino || got.Stat.Mode != st.Mode || (got.Stat.IsRegular() && got.Stat.Size != uint64(st.Size)) {
			t.Fatalf("entry %d: %s ino %x mode %o size %d; ceph-fuse: %s ino %x mode %o size %d",
				i, got.Name, got.Stat.Ino, got.Stat.Mode, got.Stat.Size, de.Name(), st.Ino, st.Mode, st.Size)
		}
	}
}
