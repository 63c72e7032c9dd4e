package fscopy_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// snapshot makes snapshot name of e's directory through a client of its
// own (e.snapper); it is removed, unless removeSnapshot did, before the
// directory is. (Removing a snapshot that is gone leaks a reference in
// Ceph 16.2's client, whose unmount then waits forever.)
func (e *env) snapshot(t *testing.T, name string) string {
	t.Helper()
	p := e.path(".snap", name)
	if e.snapper == nil {
		e.snapper = test.Mount(t)
		e.removed = map[string]bool{}
	}
	if err := e.snapper.MakeDir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !e.removed[p] {
			_ = e.snapper.RemoveDir(p)
		}
	})
	return p
}

func (e *env) removeSnapshot(t *testing.T, p string) {
	if err := e.snapper.RemoveDir(p); err != nil {
		t.Error(err)
	}
	e.removed[p] = true
}

var mib = layout.Layout{StripeUnit: 1 << 20, StripeCount: 1, ObjectSize: 1 << 20}

// A file copied from DIR/.snap/NAME is the snapshot's: its data (object 0
// and a partial last object through the client, the whole objects between
// by copy-from, all read at the snapshot's id), size, mode, times and user
// xattrs, while head has been overwritten, extended, chmod'ed and given
// another xattr since.
func TestCopyFromSnapshot(t *testing.T) {
	e := newEnv(t)
	old := test.RandomData(1, 3<<20+12345)
	e.write(t, e.path("f"), &mib, 0o640, map[uint64][]byte{0: old})
	if err := e.fs.SetXattr(e.path("f"), "user.v", []byte("old")); err != nil {
		t.Fatal(err)
	}
	st, _ := e.fs.Lstat(e.path("f"))
	a := attrsOf(st)
	a.Mtime = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := e.fs.SetAttrs(e.path("f"), a, false); err != nil {
		t.Fatal(err)
	}
	snap := e.snapshot(t, "s1")
	f, err := e.fs.OpenWrite(e.path("f"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.WriteAt(test.RandomData(2, 5<<20), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	a.Mode = 0o600
	if err := e.fs.SetAttrs(e.path("f"), a, false); err != nil {
		t.Fatal(err)
	}
	if err := e.fs.SetXattr(e.path("f"), "user.v", []byte("new")); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(e.read(t, e.path("f")), old) || !bytes.Equal(e.read(t, snap+"/f"), old) {
		t.Fatal("head was not changed after the snapshot, or the snapshot does not hold the old data")
	}

	var reports []fscopy.Report
	if _, err := e.copier(t, fscopy.Options{Copy: copyOpts(4)}, &reports).Copy(ctx, snap+"/f", e.path("copy"), false); err != nil {
		t.Fatal(err)
	}
	assertEqual(t, "copy of the snapshot", e.read(t, e.path("copy")), old)
	e.assertSameMeta(t, snap+"/f", e.path("copy"))
	if r := reports[0].Result; r.Objects != 2 {
		t.Fatalf("copy-from copied %d objects, want the 2 whole objects past object 0", r.Objects)
	}
}

// A snapshot removed after its file was read but before the copy is put
// in place fails the copy with an error naming the snapshot; no
// destination and no staging file are left.
func TestCopyFromRemovedSnapshot(t *testing.T) {
	e := newEnv(t)
	e.write(t, e.path("f"), &mib, 0o644, map[uint64][]byte{0: test.RandomData(3, 3<<20)})
	snap := e.snapshot(t, "s1")
	var o fscopy.Options
	removed := false
	var h fscopy.Hooks
	h.AfterCopy = func(string) {
		e.removeSnapshot(t, snap)
		removed = true
	}
	_, err := e.copierWith(t, o, nil, h).Copy(ctx, snap+"/f", e.path("copy"), false)
	if !removed {
		t.Fatal("the snapshot was not removed during the copy")
	}
	if !errors.Is(err, store.ErrSnapshotRemoved) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "snapshot cephfs:"+snap) {
		t.Fatalf("copy of a snapshot removed mid-copy: %v; want ErrSnapshotRemoved naming %s", err, snap)
	}
	for _, p := range []string{e.path("copy"), e.path(".radoscp.copy")} {
		if _, err := e.fs.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s after the failed copy: %v", p, err)
		}
	}
}

// Sources naming no single snapshot, and destinations inside one, are
// refused before anything is written.
func TestSnapshotPathsRefused(t *testing.T) {
	e := newEnv(t)
	e.write(t, e.path("f"), nil, 0o644, map[uint64][]byte{0: []byte("x")})
	snap := e.snapshot(t, "s1")
	c := e.copier(t, fscopy.Options{}, nil)
	for _, tc := range []struct{ src, dst, msg string }{
		{e.path(".snap"), e.path("x"), "is the snapshot directory"},
		{snap + "/.snap", e.path("x"), "more than once"},
		{e.path(".snap/nosuch/f"), e.path("x"), "nosuch"},
		{e.path("f"), snap + "/g", "read-only"},
	} {
		_, err := c.Copy(ctx, tc.src, tc.dst, true)
		if !errors.Is(err, fscopy.ErrUsage) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("copy %s -> %s: %v; want ErrUsage saying %q", tc.src, tc.dst, err, tc.msg)
		}
	}
	if _, err := e.copier(t, fscopy.Options{Pool: "cephfs_data2"}, nil).Migrate(ctx, snap); !errors.Is(err, fscopy.ErrSnapshot) {
		t.Errorf("migrate inside a snapshot: %v", err)
	}
	if _, err := e.fs.Lstat(e.path("x")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused copy wrote %s: %v", e.path("x"), err)
	}
}

// A tree copy from a snapshot into a new target checks the snapshot once,
// after the last file was read: removed after the first file's copy, it
// fails every file read from it, removes their copies from the staging
// tree (a rerun keeps none of them), and the target is not made. On a
// normal and a slow client.
func TestFreshTreeFromRemovedSnapshot(t *testing.T) {
	for _, slow := range []bool{false, true} {
		t.Run(map[bool]string{false: "normal", true: "slow"}[slow], func(t *testing.T) {
			e := newEnv(t)
			if slow {
				e.slowCopier(t, 0.3)
			}
			e.freshSource(t, e.path("src"), 4, false)
			snap := e.snapshot(t, "s1")
			o := fscopy.Options{Files: 1}
			// Small files are copied several at once (Files counts a
			// small one as a fraction): the hook runs concurrently.
			var removed atomic.Int32
			h := fscopy.Hooks{AfterCopy: func(string) {
				if removed.Add(1) == 1 {
					e.removeSnapshot(t, snap)
				}
			}}
			var reports []fscopy.Report
			_, err := e.copierWith(t, o, &reports, h).Copy(ctx, snap+"/src", e.path("new"), true)
			if removed.Load() == 0 || err == nil {
				t.Fatalf("copy with its snapshot removed after the first file (removed in %d hooks): %v; want an error", removed.Load(), err)
			}
			gone := 0
			for _, r := range reports {
				if errors.Is(r.Err, store.ErrSnapshotRemoved) && strings.Contains(r.Err.Error(), "snapshot cephfs:"+snap) {
					gone++
				}
			}
			if gone == 0 {
				t.Fatalf("no file's report names the removed snapshot: %v", reports)
			}
			if _, err := e.fs.Lstat(e.path("new")); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("the target after the failed copy: %v; want it absent", err)
			}
			entries, err := e.fs.ReadDir(e.path(".radoscp.new"))
			if err != nil {
				t.Fatal(err)
			}
			for _, en := range entries {
				if en.Stat.IsRegular() {
					t.Fatalf("the staging tree keeps %s, read from the removed snapshot", en.Name)
				}
			}
			t.Logf("%d of %d files failed naming the snapshot", gone, len(reports))
		})
	}
}

// A snapshot taken while a writer holds a file open with its data only in
// its cache (no object of the file in RADOS yet, the writer's flushes held
// off) holds the writer's data: the MDS has the writer flush what belongs
// to the snapshot before the snapshot's file is read. A tree copy of the
// snapshot, which takes its sizes from the listing, is the snapshot as
// another client reads it before and after the copy. On a normal and a
// slow client.
func TestTreeFromSnapshotOfAnOpenWriter(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		if slow > 0 {
			e.slowCopier(t, slow)
		}
		src := e.path("src")
		if err := e.fs.Mkdir(src, 0o755); err != nil {
			t.Fatal(err)
		}
		// Under the object cacher's dirty target (8 MiB): nothing makes
		// the writer flush but the snapshot.
		data := test.RandomData(21, 6<<20+77)
		// Its dirty data stays in its cache for ten minutes unless
		// something (a snapshot, a reader) makes it flush.
		w := test.MountWith(t, map[string]string{"client_oc_max_dirty_age": "600"})
		f, err := w.Open(src+"/f", os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.Write(data); err != nil {
			t.Fatal(err)
		}
		st, err := f.Fstatx(gocephfs.StatxIno, 0)
		if err != nil {
			t.Fatal(err)
		}
		// Object 0 may be there, empty: the MDS stores the file's
		// backtrace on it.
		for _, o := range objectsOf(t, uint64(st.Inode)) {
			out, err := test.RadosCLI(test.Conf(t), "-p", "cephfs_data", "stat", o)
			if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), "size 0") {
				t.Fatalf("the writer flushed before the snapshot (%s: %v %s): the data was not only in its cache", o, err, out)
			}
		}
		snap := e.snapshot(t, "s1")
		after := bytes.Repeat([]byte("Y"), 4096)
		if _, err := f.Write(after); err != nil {
			t.Fatal(err)
		}
		before := e.read(t, snap+"/src/f")

		if _, err := e.copier(t, fscopy.Options{Copy: copyOpts(4)}, nil).Copy(ctx, snap+"/src", e.path("new"), true); err != nil {
			t.Fatal(err)
		}
		got := e.read(t, e.path("new/f"))
		assertEqual(t, "the copy against the snapshot read by another client before it", got, before)
		assertEqual(t, "the copy against the snapshot read by another client after it", got, e.read(t, snap+"/src/f"))
		// The snapshot holds all that was written before it. The write
		// right after it is the writer's until the MDS's notice of the
		// snapshot reaches it: in the snapshot or not, as Ceph decides.
		if !bytes.Equal(got, data) && !bytes.Equal(got, append(data, after...)) {
			t.Fatalf("the snapshot holds %d bytes: not the %d written before it, with or without the write after it", len(got), len(data))
		}
		t.Logf("the snapshot and its copy: %d bytes (%d written before it)", len(got), len(data))
	})
}
