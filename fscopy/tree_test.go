package fscopy_test

import (
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/layout"
)

// A tree with a regular, a sparse, a striped (stripe count 3) and an empty
// file, a symlink, a fifo and nested directories, copied with -r: every
// file's bytes and metadata match, the symlink points where the source's
// does, the fifo is reported and skipped.
func TestCopyTree(t *testing.T) {
	e := newEnv(t)
	src := e.path("src")
	for _, d := range []string{"src", "src/a", "src/a/b"} {
		if err := e.fs.Mkdir(e.path(d), 0o750); err != nil {
			t.Fatal(err)
		}
	}
	regular := randomData(1, 9<<20+12345)
	sparse := randomData(2, 300<<10)
	striped := randomData(3, 9<<20+777)
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
	if sum.Files != 4 || sum.Symlinks != 1 || sum.Dirs != 3 || sum.Skipped != 1 || sum.Failed != 0 {
		t.Fatalf("summary %+v", sum)
	}
	assertEqual(t, "regular", e.read(t, e.path("dst/regular")), regular)
	wantSparse := make([]byte, 13<<20+200<<10)
	copy(wantSparse, sparse[:100<<10])
	copy(wantSparse[13<<20:], sparse[100<<10:])
	assertEqual(t, "sparse", e.read(t, e.path("dst/a/sparse")), wantSparse)
	assertEqual(t, "striped", e.read(t, e.path("dst/a/b/striped")), striped)
	assertEqual(t, "empty", e.read(t, e.path("dst/a/empty")), nil)
	for _, p := range []string{"regular", "a", "a/b", "a/sparse", "a/b/striped", "a/empty", "a/link", ""} {
		e.assertSameMeta(t, e.path("src", p), e.path("dst", p))
	}
	if target, err := e.fs.Readlink(e.path("dst/a/link")); err != nil || target != "../regular" {
		t.Fatalf("symlink: %q, %v", target, err)
	}
	if _, err := e.fs.Lstat(e.path("dst/a/fifo")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("fifo copied: %v", err)
	}
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
