package cephfs_test

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"syscall"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// Below a snapshot root held open (HoldRoot), a path is the one it names
// by the mount's root: the same inode, snapshot id, size and xattrs, its
// data and listing the snapshot's, not head's; a final symlink is
// stat'ed as itself and not opened (ELOOP), a missing name is ENOENT.
// The root's own path is the held directory. And none of those calls
// asks the MDS to look the snapshot up, where the same calls by path
// each do (counted at the MDS: lookupsnap).
func TestHeldSnapshotRootWalks(t *testing.T) {
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
	const files = 20
	for i := range files {
		write(path.Join(dir, "d", fmt.Sprint("f", i)), "snapshot's")
	}
	if err := fsys.SetXattr(path.Join(dir, "d", "f0"), "user.k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Symlink("d/f0", path.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	snap := path.Join(dir, ".snap", "s1")
	if err := fsys.Mkdir(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.RemoveDir(snap) })
	if err := fsys.Unlink(path.Join(dir, "d", "f0")); err != nil {
		t.Fatal(err)
	}
	write(path.Join(dir, "d", "f0"), "head's, longer")
	write(path.Join(dir, "d", "new"), "head's only")

	id, err := fsys.SnapID(snap)
	if err != nil {
		t.Fatal(err)
	}
	// Every call a tree copy makes of each file, by path.
	each := func(t *testing.T) {
		t.Helper()
		for i := range files {
			p := path.Join(snap, "d", fmt.Sprint("f", i))
			st, err := fsys.Lstat(p)
			if err != nil || st.Snap != id || st.Size != uint64(len("snapshot's")) {
				t.Fatalf("Lstat %s: %+v, %v; want the snapshot's (id %d)", p, st, err, id)
			}
			f, err := fsys.OpenReadNoFollow(p)
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 64)
			n, err := f.ReadAt(buf, 0)
			f.Close()
			if err != nil || string(buf[:n]) != "snapshot's" || f.Ino() != st.Ino || f.Path() != p {
				t.Fatalf("%s opened: %q, %v, inode %x, path %s; want the snapshot's data of inode %x", p, buf[:n], err, f.Ino(), f.Path(), st.Ino)
			}
			if _, _, err := fsys.CachedLayout(p); err != nil {
				t.Fatal(err)
			}
			x, err := fsys.Xattrs(p)
			if err != nil || (i == 0) != (string(x["user.k"]) == "v") {
				t.Fatalf("Xattrs %s: %v, %v", p, x, err)
			}
		}
	}
	byPath := test.MDSRequests(t)
	each(t)
	if n := test.RequestsSince(byPath, test.MDSRequests(t))["lookupsnap"]; n < files {
		t.Fatalf("the calls by path sent %d lookupsnap requests for %d files, want at least one a file: is the MDS counted?", n, files)
	}

	st, release, err := fsys.HoldRoot(snap)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	held := test.MDSRequests(t) // the hold's own open looked the snapshot up
	if st.Snap != id || !st.IsDir() {
		t.Fatalf("the held root: %+v; want a directory of snapshot %d", st, id)
	}
	entries, err := fsys.ReadDir(path.Join(snap, "d"))
	if err != nil || len(entries) != files {
		t.Fatalf("ReadDir of the snapshot's d: %d entries, %v; want its %d files", len(entries), err, files)
	}
	// The root itself, by its own path, is the held directory.
	if got, err := fsys.Lstat(snap); err != nil || got.Ino != st.Ino || got.Snap != id {
		t.Fatalf("Lstat of the held root: %+v, %v; want %+v", got, err, st)
	}
	if entries, err := fsys.ReadDir(snap); err != nil || len(entries) != 2 || entries[0].Name != "d" || entries[1].Name != "l" {
		t.Fatalf("ReadDir of the held root: %+v, %v; want d and l", entries, err)
	}
	if _, err := fsys.Xattrs(snap); err != nil {
		t.Fatalf("Xattrs of the held root: %v", err)
	}
	each(t)
	if got := test.RequestsSince(held, test.MDSRequests(t)); got["lookupsnap"] != 0 {
		t.Fatalf("below the held root the same calls sent %d lookupsnap requests, want none; all: %v", got["lookupsnap"], got)
	}
	if st, err := fsys.Lstat(path.Join(snap, "l")); err != nil || st.Type() != "symlink" {
		t.Fatalf("Lstat of a symlink below the held root: %+v, %v; want the symlink itself", st, err)
	}
	if st, err := fsys.Stat(path.Join(snap, "l")); err != nil || !st.IsRegular() || st.Snap != id {
		t.Fatalf("Stat of a symlink below the held root: %+v, %v; want the snapshot's file it names", st, err)
	}
	if f, err := fsys.OpenReadNoFollow(path.Join(snap, "l")); !errors.Is(err, syscall.ELOOP) {
		if err == nil {
			f.Close()
		}
		t.Fatalf("OpenReadNoFollow of a symlink below the held root: %v, want ELOOP", err)
	}
	if _, err := fsys.Lstat(path.Join(snap, "d", "new")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Lstat of a name only head has: %v, want ENOENT", err)
	}
}
