package fscopy_test

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// A tree with a regular, a sparse, a striped (stripe count 3) and an empty
// file, a symlink, a fifo and nested directories, copied with -r: every
// file's bytes and metadata match, the symlink points where the source's
// does, the fifo is made again (see TestCopySpecialFiles).
func TestCopyTree(t *testing.T) {
	e := newEnv(t)
	src := e.path("src")
	for _, d := range []string{"src", "src/a", "src/a/b"} {
		if err := e.fs.Mkdir(e.path(d), 0o750); err != nil {
			t.Fatal(err)
		}
	}
	regular := test.RandomData(1, 9<<20+12345)
	sparse := test.RandomData(2, 300<<10)
	striped := test.RandomData(3, 9<<20+777)
	sc3 := layout.Layout{StripeUnit: 64 << 10, StripeCount: 3, ObjectSize: 1 << 20}
	e.write(t, e.path("src/regular"), nil, 0o640, map[uint64][]byte{0: regular})
	e.write(t, e.path("src/a/sparse"), nil, 0o600, map[uint64][]byte{0: sparse[:100<<10], 13 << 20: sparse[100<<10:]})
	e.write(t, e.path("src/a/b/striped"), &sc3, 0o644, map[uint64][]byte{0: striped})
	e.write(t, e.path("src/a/empty"), nil, 0o444, nil)
	if err := e.fs.SetXattr(e.path("src/regular"), "user.origin", []byte("test")); err != nil {
		t.Fatal(err)
	}
	if err := e.fs.Symlink("../regular", e.path("src/a/link")); err != nil {
		t.Fatal(err)
	}
	if err := e.other.Mknod(e.path("src/a/fifo"), 0o010644, 0); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2001, 2, 3, 4, 5, 6, 7000, time.UTC)
	for _, p := range []string{"src/regular", "src/a", "src/a/link"} {
		st, _ := e.fs.Lstat(e.path(p))
		a := attrsOf(st)
		a.Mtime, a.Atime = old, old.Add(time.Hour)
		if err := e.fs.SetAttrs(e.path(p), a, st.IsSymlink()); err != nil {
			t.Fatal(err)
		}
	}

	var reports []fscopy.Report
	sum, err := e.copier(t, fscopy.Options{Files: 3, Sync: fscopy.SyncFS}, &reports).Copy(ctx, src, e.path("dst"), true)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files != 4 || sum.Symlinks != 1 || sum.Dirs != 3 || sum.Specials != 1 || sum.Skipped != 0 || sum.Failed != 0 {
		t.Fatalf("summary %+v", sum)
	}
	assertEqual(t, "regular", e.read(t, e.path("dst/regular")), regular)
	wantSparse := make([]byte, 13<<20+200<<10)
	copy(wantSparse, sparse[:100<<10])
	copy(wantSparse[13<<20:], sparse[100<<10:])
	assertEqual(t, "sparse", e.read(t, e.path("dst/a/sparse")), wantSparse)
	// Holes stay holes: objects 1 and 2 (bytes 4 MiB to 12 MiB) are not
	// written.
	sparseSt, _ := e.fs.Lstat(e.path("dst/a/sparse"))
	data, err := e.conn.OpenPool("cephfs_data", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range []uint64{1, 2} {
		if _, err := data.Stat(layout.CephFS(sparseSt.Ino).ObjectName(obj)); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("sparse copy: object %d of the hole: %v, want ENOENT", obj, err)
		}
	}
	assertEqual(t, "striped", e.read(t, e.path("dst/a/b/striped")), striped)
	assertEqual(t, "empty", e.read(t, e.path("dst/a/empty")), nil)
	for _, p := range []string{"regular", "a", "a/b", "a/sparse", "a/b/striped", "a/empty", "a/link", ""} {
		e.assertSameMeta(t, e.path("src", p), e.path("dst", p))
	}
	if target, err := e.fs.Readlink(e.path("dst/a/link")); err != nil || target != "../regular" {
		t.Fatalf("symlink: %q, %v", target, err)
	}
	e.assertSameMeta(t, e.path("src/a/fifo"), e.path("dst/a/fifo"))
	l, err := e.fs.Layout(e.path("dst/a/b/striped"))
	if err != nil || l.Layout != sc3 {
		t.Fatalf("striped copy's layout %v, %v; want %v", l, err, sc3)
	}
	for _, r := range reports {
		// Three whole object sets of three objects, less object 0,
		// which carries the inode's backtrace.
		if r.Src == e.path("src/a/b/striped") && r.Result.Objects != 8 {
			t.Fatalf("striped file: %d objects by copy-from, want 8", r.Result.Objects)
		}
	}
}

// A destination striped differently from its source is copied through the
// client, and the result says so; with OffloadOnly it is refused and
// nothing appears.
func TestDifferentLayoutFallsBack(t *testing.T) {
	e := newEnv(t)
	src := e.path("src")
	data := test.RandomData(5, 9<<20+1)
	e.write(t, src, nil, 0o644, map[uint64][]byte{0: data})
	other := layout.Layout{StripeUnit: 1 << 20, StripeCount: 2, ObjectSize: 2 << 20}
	var reports []fscopy.Report
	if _, err := e.copier(t, fscopy.Options{Striping: &other}, &reports).Copy(ctx, src, e.path("dst"), false); err != nil {
		t.Fatal(err)
	}
	if r := reports[0].Result; !r.Fallback || r.Objects != 0 {
		t.Fatalf("copy to another layout: fallback %v, %d objects by copy-from", r.Fallback, r.Objects)
	}
	assertEqual(t, "copy", e.read(t, e.path("dst")), data)
	if l, _ := e.fs.Layout(e.path("dst")); l.Layout != other {
		t.Fatalf("copy's layout %v, want %v", l.Layout, other)
	}

	o := fscopy.Options{Striping: &other}
	o.Copy.OffloadOnly = true
	_, err := e.copier(t, o, nil).Copy(ctx, src, e.path("dst2"), false)
	if !errors.Is(err, fscopy.ErrUsage) || !strings.Contains(err.Error(), "layouts differ") {
		t.Fatalf("offload-only copy to another layout: %v; want a refusal saying the layouts differ", err)
	}
	for _, p := range []string{"dst2", ".radoscp.dst2"} {
		if _, err := e.fs.Lstat(e.path(p)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s after a refused copy: %v", p, err)
		}
	}
}
