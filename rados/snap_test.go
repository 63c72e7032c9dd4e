package rados_test

import (
	"bytes"
	"errors"
	"os/exec"
	"syscall"
	"testing"

	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// A pool opened at a pool snapshot reads the snapshot, its Locate carries
// the snapshot's id, and a copy-from of it copies the snapshot's object
// (the op's snapid checked against it), not head's. A removed snapshot is
// reported gone by CheckPoolSnap, naming it.
func TestCopyFromPoolSnapshot(t *testing.T) {
	c := connect(t, rados.ConnConfig{})
	conf := test.Conf(t)
	a, b := openPool(t, c, "radoscp-a", ""), openPool(t, c, "radoscp-b", "")
	oid, name := test.UniqueName(t), test.UniqueName(t)
	old := randomBytes(t, 3<<20)
	if err := a.WriteFull(oid, old); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Remove(oid); b.Remove(oid) })
	if out, err := exec.Command("ceph", "-c", conf, "osd", "pool", "mksnap", "radoscp-a", name).CombinedOutput(); err != nil {
		t.Fatalf("mksnap: %v: %s", err, out)
	}
	removed := false
	t.Cleanup(func() {
		if !removed {
			exec.Command("ceph", "-c", conf, "osd", "pool", "rmsnap", "radoscp-a", name).Run()
		}
	})
	// Until this client has the map with the snapshot, its writes carry
	// the old snap context, and the OSDs would not keep the old data.
	if err := c.Raw().WaitForLatestOSDMap(); err != nil {
		t.Fatal(err)
	}
	if err := a.WriteFull(oid, []byte("head")); err != nil {
		t.Fatal(err)
	}
	snap, err := c.LookupPoolSnap("radoscp-a", name)
	if err != nil {
		t.Fatal(err)
	}
	at, err := c.OpenPoolAt("radoscp-a", "", snap.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, at, oid); !bytes.Equal(got, old) {
		t.Fatalf("read at the snapshot: %d bytes, not the snapshot's", len(got))
	}
	if l := at.Locate(oid); l.Snap != snap.ID {
		t.Fatalf("Locate at the snapshot: %+v, want snap %d", l, snap.ID)
	}
	if err := at.WriteFull(oid, []byte("x")); !errors.Is(err, syscall.EROFS) {
		t.Fatalf("write through a pool at a snapshot: %v, want EROFS", err)
	}
	p, err := b.Submit(oid, at.Locate(oid), store.CopyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, b, oid); !bytes.Equal(got, old) {
		t.Fatalf("copy-from at the snapshot: %d bytes (head is 4), not the snapshot's", len(got))
	}
	if err := c.CheckPoolSnap(snap); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("ceph", "-c", conf, "osd", "pool", "rmsnap", "radoscp-a", name).CombinedOutput(); err != nil {
		t.Fatalf("rmsnap: %v: %s", err, out)
	}
	removed = true
	if err := c.CheckPoolSnap(snap); !errors.Is(err, store.ErrSnapshotRemoved) || !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("CheckPoolSnap of a removed snapshot: %v", err)
	}
	if _, err := c.LookupPoolSnap("radoscp-a", name); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("LookupPoolSnap of a removed snapshot: %v", err)
	}
}
