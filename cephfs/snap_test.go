package cephfs_test

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"testing"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/test"
)

// A file under DIR/.snap/NAME has the snapshot's id (ceph_get_snap_info)
// as its statx device (Stat.Snap) and the head's inode number, and its objects read
// at that id on the data pool are the snapshot's data, not head's; once
// the snapshot is removed by another client, SnapID says so.
func TestSnapshotIDReadsTheSnapshot(t *testing.T) {
	conn, fsys := test.MountFS(t)
	other := test.Mount(t)
	dir := "/" + test.UniqueName(t)
	if err := fsys.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	test.RemoveTree(t, other, dir)
	f, err := fsys.CreateExclusive(path.Join(dir, "f"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	old := bytes.Repeat([]byte("old!"), 1<<18)
	if err := f.WriteAt(old, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	snap := path.Join(dir, ".snap", "s1")
	if err := fsys.Mkdir(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	removed := false
	t.Cleanup(func() {
		if !removed {
			_ = other.RemoveDir(snap)
		}
	})
	f, err = fsys.OpenWrite(path.Join(dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.WriteAt(bytes.Repeat([]byte("new!"), 1<<18), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()

	id, err := fsys.SnapID(snap)
	if err != nil {
		t.Fatal(err)
	}
	fileID, err := fsys.SnapID(path.Join(snap, "f"))
	if err != nil || fileID != id {
		t.Fatalf("SnapID of the file in the snapshot: %d, %v; the snapshot's is %d", fileID, err, id)
	}
	if _, err := fsys.SnapID(dir); err == nil {
		t.Fatal("SnapID of a head directory succeeded")
	}
	head, err := fsys.Lstat(path.Join(dir, "f"))
	if err != nil || head.Snap != 0 {
		t.Fatalf("head's stat: snap %d, %v; want 0", head.Snap, err)
	}
	st, err := fsys.Lstat(path.Join(snap, "f"))
	if err != nil || st.Ino != head.Ino || st.Snap != id {
		t.Fatalf("snapshot inode %x snap %d, %v; want head's inode %x and snap %d", st.Ino, st.Snap, err, head.Ino, id)
	}
	if st.Same(head) {
		t.Fatal("the snapshot's stat is the same as head's")
	}
	l, err := fsys.Layout(path.Join(snap, "f"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := conn.OpenPoolAt(l.Pool, l.Namespace, id)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len(old))
	n, err := p.Read(layout.CephFS(st.Ino).ObjectName(0), buf, 0)
	if err != nil || !bytes.Equal(buf[:n], old) {
		t.Fatalf("object 0 read at snap %d: %d bytes, %v; equal to the snapshot: %v", id, n, err, bytes.Equal(buf[:n], old))
	}

	if err := other.RemoveDir(snap); err != nil {
		t.Fatal(err)
	}
	removed = true
	if _, err := fsys.SnapID(snap); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("SnapID of the removed snapshot: %v, want ENOENT", err)
	}
	// What reads at a removed snapshot give depends on the OSDs'
	// trimming (the old data, then ENOENT): never rely on them.
	n, err = p.Read(layout.CephFS(st.Ino).ObjectName(0), buf, 0)
	t.Logf("object 0 read at removed snap %d: %d bytes, %v, equal to the snapshot %v", id, n, err, bytes.Equal(buf[:n], old))
}
