package fscopy_test

import (
	"errors"
	"os"
	"testing"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/test"
)

// migrate moves a tree's files from cephfs_data to cephfs_data2 keeping
// content and metadata; a hard-linked file with both links in the tree is
// moved with them, still one inode (TestMigrateMovesWholeLinkGroups has
// the other cases); a
// file changed during its copy is left as it is and reported; a second
// run finds the rest already moved.
func TestMigrate(t *testing.T) {
	e := newEnv(t)
	if err := e.fs.Mkdir(e.path("sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	sc2 := layout.Layout{StripeUnit: 1 << 20, StripeCount: 2, ObjectSize: 2 << 20}
	files := map[string][]byte{
		"a":         test.RandomData(40, 10<<20+5),
		"sub/b":     test.RandomData(41, 3<<20),
		"sub/empty": nil,
		"linked":    test.RandomData(42, 1<<20),
		"changing":  test.RandomData(43, 5<<20),
	}
	for name, data := range files {
		var l *layout.Layout
		if name == "sub/b" {
			l = &sc2
		}
		e.write(t, e.path(name), l, 0o640, map[uint64][]byte{0: data})
	}
	if err := e.fs.SetXattr(e.path("a"), "user.k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := e.other.Link(e.path("linked"), e.path("sub/linked2")); err != nil {
		t.Fatal(err)
	}
	before := map[string]uint64{}
	for name := range files {
		st, _ := e.fs.Lstat(e.path(name))
		before[name] = st.Ino
	}
	srcMeta := map[string]string{}
	for name := range files {
		// Keep a copy of each file's metadata under another name, to
		// compare with after the migration replaced it.
		keep := e.path("meta-" + string(rune('A'+len(srcMeta))))
		srcMeta[name] = keep
		st, _ := e.fs.Lstat(e.path(name))
		e.write(t, keep, nil, 0o600, nil)
		a := attrsOf(st)
		if err := e.fs.SetAttrs(keep, a, false); err != nil {
			t.Fatal(err)
		}
		if x, _ := e.fs.Xattrs(e.path(name)); x != nil {
			for k, v := range x {
				e.fs.SetXattr(keep, k, v)
			}
		}
	}

	o := fscopy.Options{Pool: "cephfs_data2", Files: 2}
	var h fscopy.Hooks
	h.AfterCopy = func(src string) {
		if src != e.path("changing") {
			return
		}
		f, _ := e.other.Open(src, os.O_WRONLY, 0)
		f.WriteAt([]byte("x"), 0)
		f.Fsync(gocephfs.SyncAll)
		f.Close()
	}
	var reports []fscopy.Report
	sum, err := e.copierWith(t, o, &reports, h).Migrate(ctx, e.dir)
	if err == nil {
		t.Fatal("migrate with a changing file reported success")
	}
	byName := map[string]fscopy.Report{}
	for _, r := range reports {
		byName[r.Src] = r
	}
	if r := byName[e.path("changing")]; !errors.Is(r.Err, fscopy.ErrSourceChanged) {
		t.Fatalf("changing file: %+v", r)
	}
	if r := byName[e.path("linked")]; r.Outcome != fscopy.Copied {
		t.Fatalf("hard link linked: %+v, want copied", r)
	}
	if r := byName[e.path("sub/linked2")]; r.Outcome != fscopy.HardLink {
		t.Fatalf("hard link sub/linked2: %+v, want a hard link to linked", r)
	}
	if sum.Files != 4+len(srcMeta) || sum.HardLinks != 1 {
		t.Fatalf("summary %+v: want %d files moved and 1 hard link", sum, 4+len(srcMeta))
	}
	a, _ := e.fs.Lstat(e.path("linked"))
	if b, _ := e.fs.Lstat(e.path("sub/linked2")); a.Ino != b.Ino || a.Nlink != 2 {
		t.Fatalf("linked and sub/linked2 are inodes %x and %x with %d links: the hard link was split", a.Ino, b.Ino, a.Nlink)
	}
	for name, data := range files {
		l, err := e.fs.Layout(e.path(name))
		if err != nil {
			t.Fatal(err)
		}
		st, _ := e.fs.Lstat(e.path(name))
		moved := name != "changing"
		if moved != (l.Pool == "cephfs_data2") || moved == (st.Ino == before[name]) {
			t.Fatalf("%s: pool %s, inode %#x (was %#x); moved should be %v", name, l.Pool, st.Ino, before[name], moved)
		}
		if name == "changing" {
			data = append([]byte("x"), data[1:]...)
		}
		assertEqual(t, name, e.read(t, e.path(name)), data)
		if moved {
			e.assertSameMeta(t, srcMeta[name], e.path(name))
			if name == "sub/b" && l.Layout != sc2 {
				t.Fatalf("sub/b: layout %v, want %v", l.Layout, sc2)
			}
		}
	}

	reports = nil
	o = fscopy.Options{Pool: "cephfs_data2"}
	sum, err = e.copier(t, o, &reports).Migrate(ctx, e.dir)
	if err != nil || sum.Files != 1 || sum.Unchanged != 5+len(srcMeta) {
		t.Fatalf("second run: %+v, %v; want only the changed file moved", sum, err)
	}
}
