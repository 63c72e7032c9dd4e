package fscopy_test

import (
	"encoding/binary"
	"os"
	"testing"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/test"
)

// The source is truncated and rewritten, so its objects are stored with
// truncate seq 2; its object 1 holds only its first MiB. The copy is a new
// file (seq 1, objects stored with 0). Through another client: a write
// into the hole of object 1, past the object's stored size, lands (it
// would be clipped if the copied object kept the source's seq 2); a
// truncate to 2 MiB then trims the copied objects (the MDS's trim, sent
// with seq 2, would be ignored by objects stored with seq 2, and growing
// the file back would show their old data).
func TestCopyTakesTheDestinationsGeneration(t *testing.T) {
	e := newEnv(t)
	l := layout.Layout{StripeUnit: 4 << 20, StripeCount: 1, ObjectSize: 4 << 20}
	src, dst := e.path("src"), e.path("dst")
	old := test.RandomData(10, 12<<20)
	e.write(t, src, &l, 0o644, map[uint64][]byte{0: old})
	if err := e.other.Truncate(src, 1<<20); err != nil {
		t.Fatal(err)
	}
	head, obj1, obj2 := test.RandomData(11, 4<<20), test.RandomData(12, 1<<20), test.RandomData(13, 4<<20)
	f, err := e.other.Open(src, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for off, b := range map[int64][]byte{0: head, 4 << 20: obj1, 8 << 20: obj2} {
		if _, err := f.WriteAt(b, off); err != nil {
			t.Fatal(err)
		}
	}
	f.Fsync(gocephfs.SyncAll)
	f.Close()
	want := make([]byte, 12<<20)
	copy(want, head)
	copy(want[4<<20:], obj1)
	copy(want[8<<20:], obj2)
	assertEqual(t, "source", e.read(t, src), want)

	var reports []fscopy.Report
	if _, err := e.copier(t, fscopy.Options{}, &reports).Copy(ctx, src, dst, false); err != nil {
		t.Fatal(err)
	}
	if r := reports[0]; r.Result.Objects != 2 || r.Result.Generation.Seq != 0 {
		t.Fatalf("copy: %d objects by copy-from with generation %+v; want 2 with (0, 0)", r.Result.Objects, r.Result.Generation)
	}
	assertEqual(t, "copy", e.read(t, dst), want)

	// A write into object 1's hole, past its stored size.
	patch := test.RandomData(14, 64<<10)
	g, err := e.other.Open(dst, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.WriteAt(patch, 6<<20); err != nil {
		t.Fatal(err)
	}
	g.Fsync(gocephfs.SyncAll)
	g.Close()
	copy(want[6<<20:], patch)
	assertEqual(t, "copy after a write into the hole", e.read(t, dst), want)

	// Truncate, then grow back: the cut bytes read as zeros.
	if err := e.other.Truncate(dst, 2<<20); err != nil {
		t.Fatal(err)
	}
	if err := e.other.Truncate(dst, 12<<20); err != nil {
		t.Fatal(err)
	}
	clear(want[2<<20:])
	assertEqual(t, "copy truncated to 2 MiB and grown back", e.read(t, dst), want)
}

// Object 0 of a copy carries a backtrace naming the copy's inode, not the
// source's: it is written through the client, never by copy-from.
func TestBacktraceNamesTheCopy(t *testing.T) {
	e := newEnv(t)
	src, dst := e.path("src"), e.path("dst")
	e.write(t, src, nil, 0o644, map[uint64][]byte{0: test.RandomData(20, 9<<20)})
	if _, err := e.copier(t, fscopy.Options{}, nil).Copy(ctx, src, dst, false); err != nil {
		t.Fatal(err)
	}
	test.Ceph(t, "tell", "mds.a", "flush", "journal")
	sst, _ := e.fs.Lstat(src)
	dstSt, _ := e.fs.Lstat(dst)
	l, err := e.fs.Layout(dst)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := e.conn.OpenPool(l.Pool, l.Namespace)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ino  uint64
		what string
	}{{dstSt.Ino, "copy"}, {sst.Ino, "source"}} {
		bt, err := pool.Xattr(layout.CephFS(c.ino).ObjectName(0), "parent")
		if err != nil {
			t.Fatalf("%s's backtrace: %v", c.what, err)
		}
		// inode_backtrace_t: struct_v, compat, length, then the inode.
		if len(bt) < 14 || binary.LittleEndian.Uint64(bt[6:]) != c.ino {
			t.Fatalf("%s's object 0 carries a backtrace for inode %#x, want %#x", c.what, binary.LittleEndian.Uint64(bt[6:]), c.ino)
		}
	}
}
