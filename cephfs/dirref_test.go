package cephfs_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io/fs"
	"path"
	"syscall"
	"testing"

	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// An InodeRef of a directory looks up, lists, unlinks and removes names
// in that directory, never following a symlink: a symlink to a directory
// outside is looked up as the symlink, unlinked as one, and the
// directory it points to keeps its file (read through ceph-fuse).
// unlink of a directory is EISDIR, rmdir of a non-empty one ENOTEMPTY,
// of a symlink ENOTDIR; GetXattr reads the inode's xattr.
func TestInodeRefStaysInItsDirectory(t *testing.T) {
	f := mount(t)
	fuse := test.FuseMount(t)
	root := "/" + test.UniqueName(t)
	dir, out := path.Join(root, "d"), path.Join(root, "out")
	for _, p := range []string{root, dir, out, path.Join(dir, "sub")} {
		if err := f.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	test.Run(t, "sh", "-ec", "cd "+fuse+root+" && echo x > out/x && echo y > d/sub/y && ln -s "+out+" d/link && setfattr -n user.m -v v d/sub")

	ref, err := f.Ref(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Release()
	es, err := ref.ReadDir()
	if err != nil || len(es) != 2 || es[0].Name != "link" || !es[0].Stat.IsSymlink() || es[1].Name != "sub" || !es[1].Stat.IsDir() {
		t.Fatalf("ReadDir: %+v, %v; want link (symlink), sub (directory)", es, err)
	}
	link, st, err := ref.Lookup("link")
	if err != nil || !st.IsSymlink() || link.Path() != path.Join(dir, "link") {
		t.Fatalf("Lookup(link): %+v, %v; want the symlink itself", st, err)
	}
	link.Release()
	sub, st, err := ref.Lookup("sub")
	if err != nil || !st.IsDir() {
		t.Fatalf("Lookup(sub): %+v, %v", st, err)
	}
	if v, err := sub.GetXattr("user.m"); err != nil || string(v) != "v" {
		t.Fatalf("GetXattr(user.m): %q, %v", v, err)
	}
	if _, err := sub.GetXattr("user.none"); store.ErrnoOf(err) != syscall.ENODATA {
		t.Fatalf("GetXattr of a missing xattr: %v; want ENODATA", err)
	}
	sub.Release()
	errno := func(err error) syscall.Errno { return store.ErrnoOf(err) }
	if err := ref.Unlink("sub"); errno(err) != syscall.EISDIR {
		t.Fatalf("Unlink(sub): %v; want EISDIR", err)
	}
	if err := ref.Rmdir("sub"); errno(err) != syscall.ENOTEMPTY {
		t.Fatalf("Rmdir(sub): %v; want ENOTEMPTY", err)
	}
	if err := ref.Rmdir("link"); errno(err) != syscall.ENOTDIR {
		t.Fatalf("Rmdir(link): %v; want ENOTDIR", err)
	}
	if _, _, err := ref.Lookup("none"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Lookup(none): %v; want not found", err)
	}
	if err := ref.Unlink("link"); err != nil {
		t.Fatal(err)
	}
	if got := test.Run(t, "sh", "-ec", "cd "+fuse+root+" && ls -A d && cat out/x"); got != "sub\nx\n" {
		t.Fatalf("after unlinking the symlink, through ceph-fuse: %q", got)
	}
}

// GetXattr reads a value in one request when it fits its first buffer,
// and larger ones (past the buffer, past what its doublings reach) whole;
// a missing one is ENODATA. The values are written through ceph-fuse.
func TestInodeRefGetXattrSizes(t *testing.T) {
	f := mount(t)
	fuse := test.FuseMount(t)
	dir := "/" + test.UniqueName(t)
	if err := f.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"user.small": 20, "user.big": 3000, "user.bigger": 60000}
	for name, n := range want {
		test.Run(t, "setfattr", "-n", name, "-v", "0s"+base64.StdEncoding.EncodeToString(test.RandomData(uint64(n), n)), fuse+dir)
	}
	ref, err := f.Ref(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Release()
	for name, n := range want {
		v, err := ref.GetXattr(name)
		if err != nil || !bytes.Equal(v, test.RandomData(uint64(n), n)) {
			t.Errorf("GetXattr(%s): %d bytes, %v; want the %d written", name, len(v), err, n)
		}
	}
	if _, err := ref.GetXattr("user.none"); store.ErrnoOf(err) != syscall.ENODATA {
		t.Errorf("GetXattr of a missing xattr: %v, want ENODATA", err)
	}
}

// ReadDirHeld lists a directory as ReadDir does (names, types, stats)
// and holds each subdirectory, and only those, by the inode listed: the
// reference's number is the entry's, and its xattrs read as a lookup's
// would, at head and inside a snapshot taken after (where the inodes are
// the snapshot's). Entries are made through ceph-fuse.
func TestReadDirHeld(t *testing.T) {
	f := mount(t)
	fuse := test.FuseMount(t)
	root := "/" + test.UniqueName(t)
	if err := f.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	test.Run(t, "sh", "-ec", "cd "+fuse+root+" && mkdir d && cd d && mkdir a b && echo f > f && ln -s a l && mkfifo p && setfattr -n user.m -v va a && setfattr -n user.m -v vb b")
	test.Run(t, "mkdir", fuse+root+"/d/.snap/s")
	t.Cleanup(func() { test.Run(t, "rmdir", fuse+root+"/d/.snap/s") })
	test.Run(t, "setfattr", "-n", "user.m", "-v", "changed", fuse+root+"/d/a")

	for dir, wantA := range map[string]string{path.Join(root, "d"): "changed", path.Join(root, "d", ".snap", "s"): "va"} {
		ref, err := f.Ref(dir)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ref.ReadDir()
		if err != nil {
			t.Fatal(err)
		}
		got, subdirs, err := ref.ReadDirHeld()
		ref.Release()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || len(got) != 5 {
			t.Fatalf("%s: ReadDirHeld listed %d entries, ReadDir %d; want 5", dir, len(got), len(want))
		}
		for i := range got {
			if got[i].Name != want[i].Name || got[i].Stat.Ino != want[i].Stat.Ino || got[i].Stat.Mode != want[i].Stat.Mode {
				t.Errorf("%s: entry %d: %+v, ReadDir's %+v", dir, i, got[i], want[i])
			}
		}
		if len(subdirs) != 2 || subdirs["a"] == nil || subdirs["b"] == nil {
			t.Fatalf("%s: held %v, want a and b", dir, subdirs)
		}
		for _, e := range got {
			if d := subdirs[e.Name]; d != nil && (d.Ino() != e.Stat.Ino || d.Path() != path.Join(dir, e.Name)) {
				t.Errorf("%s: %s held as inode %d at %s; listed %d", dir, e.Name, d.Ino(), d.Path(), e.Stat.Ino)
			}
		}
		for name, v := range map[string]string{"a": wantA, "b": "vb"} {
			if got, err := subdirs[name].GetXattr("user.m"); err != nil || string(got) != v {
				t.Errorf("%s: %s's user.m through its held inode: %q, %v; want %q", dir, name, got, err, v)
			}
			if _, err := subdirs[name].GetXattr("ceph.dir.rctime"); err != nil {
				t.Errorf("%s: %s's rctime: %v", dir, name, err)
			}
			subdirs[name].Release()
		}
	}
}
