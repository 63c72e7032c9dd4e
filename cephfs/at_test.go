package cephfs_test

import (
	"errors"
	"io/fs"
	"path"
	"syscall"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// Inside a snapshot, a file stat'ed or opened by a walk from the open
// snapshot root is the one its path names: the same inode, snapshot id
// and size, its data the snapshot's, not head's; a final symlink is
// stat'ed as itself and not opened (ELOOP), a missing name is ENOENT.
func TestWalksFromASnapshotRoot(t *testing.T) {
	_, fsys := test.MountFS(t)
	other := test.Mount(t)
	dir := "/" + test.UniqueName(t)
	if err := fsys.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	test.RemoveTree(t, other, dir)
	write := func(p, data string) {
		t.Helper()
		f, err := fsys.CreateExclusive(p, 0o644)
		if err == nil {
			err = f.WriteAt([]byte(data), 0)
			f.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := fsys.Mkdir(path.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(path.Join(dir, "d", "g"), "snapshot's")
	if err := fsys.Symlink("d/g", path.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	snap := path.Join(dir, ".snap", "s1")
	if err := fsys.Mkdir(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.RemoveDir(snap) })
	if err := fsys.Unlink(path.Join(dir, "d", "g")); err != nil {
		t.Fatal(err)
	}
	write(path.Join(dir, "d", "g"), "head's, longer")

	id, err := fsys.SnapID(snap)
	if err != nil {
		t.Fatal(err)
	}
	root, err := fsys.OpenDir(snap)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if st, err := root.Stat(); err != nil || st.Snap != id || !st.IsDir() {
		t.Fatalf("the snapshot root: %+v, %v; want a directory of snapshot %d", st, err, id)
	}
	want, err := fsys.Lstat(path.Join(snap, "d", "g"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := root.LstatAt("d/g")
	if err != nil || got.Ino != want.Ino || got.Snap != id || got.Size != uint64(len("snapshot's")) || !got.Same(want) {
		t.Fatalf("LstatAt d/g: %+v, %v; want %+v", got, err, want)
	}
	f, err := root.OpenReadNoFollowAt("d/g")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, err := f.ReadAt(buf, 0)
	f.Close()
	if err != nil || string(buf[:n]) != "snapshot's" || f.Ino() != want.Ino || f.Path() != path.Join(snap, "d", "g") {
		t.Fatalf("d/g opened from the root: %q, %v, inode %x, path %s; want the snapshot's data of inode %x", buf[:n], err, f.Ino(), f.Path(), want.Ino)
	}
	if st, err := root.LstatAt("l"); err != nil || st.Type() != "symlink" {
		t.Fatalf("LstatAt l: %+v, %v; want the symlink itself", st, err)
	}
	if f, err := root.OpenReadNoFollowAt("l"); !errors.Is(err, syscall.ELOOP) {
		if err == nil {
			f.Close()
		}
		t.Fatalf("OpenReadNoFollowAt of a symlink: %v, want ELOOP", err)
	}
	if _, err := root.LstatAt("d/missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("LstatAt of a missing name: %v, want ENOENT", err)
	}
}
