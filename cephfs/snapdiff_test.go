package cephfs_test

import (
	"errors"
	"os"
	"path"
	"slices"
	"testing"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/test"
)

// Why an incremental copy does not take its list of changed files from a
// snapshot diff (ceph_open_snapdiff and ceph_readdir_snapdiff, libcephfs
// 18.2.7 and later, resolved at run time by go-ceph): between two
// snapshots the diff lists files whose data or times changed, new and
// removed names, but not a file whose mode, owner or xattrs alone
// changed, so a copy driven by it would leave those stale. And it lists
// every subdirectory, changed below or not, so it prunes no subtree: a
// walk driven by it opens a diff in every directory, where rctime pruning
// skips an unchanged subtree whole. With a libcephfs that
// lacks the calls (Ceph 16, the host's) the test checks that go-ceph
// says so; in the Reef lane (make test-reef, built -tags reef in the
// Debian 13 root) it checks the diff as above, so a release that lists
// metadata changes makes this test fail and the choice be revisited.
func TestSnapDiffMissesMetadataChanges(t *testing.T) {
	m := test.Mount(t)
	root := "/" + test.UniqueName(t)
	for _, d := range []string{root, root + "/d", root + "/same"} {
		if err := m.MakeDir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	test.RemoveTree(t, m, root)
	write := func(name, s string) {
		f, err := m.Open(path.Join(root, name), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"d/data", "d/mode", "d/owner", "d/xattr", "same/f"} {
		write(n, "before")
	}
	snap := func(name string) {
		if err := m.MakeDir(path.Join(root, ".snap", name), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = m.RemoveDir(path.Join(root, ".snap", name)) })
	}
	if err := m.SyncFs(); err != nil {
		t.Fatal(err)
	}
	snap("s1")
	write("d/data", "AFTER!")
	for _, err := range []error{
		m.Chmod(path.Join(root, "d/mode"), 0o600),
		m.Chown(path.Join(root, "d/owner"), 1000, 1000),
		m.SetXattr(path.Join(root, "d/xattr"), "user.k", []byte("v"), 0),
		m.SyncFs(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	snap("s2")

	listed := func(rel string) []string {
		t.Helper()
		info, err := gocephfs.OpenSnapDiff(gocephfs.SnapDiffConfig{CMount: m, RootPath: root, RelPath: rel, Snap1: "s1", Snap2: "s2"})
		if err != nil {
			t.Fatalf("open the diff of %s: %v", rel, err)
		}
		defer info.Close()
		var names []string
		for {
			e, err := info.Readdir()
			if err != nil {
				t.Fatalf("read the diff of %s: %v", rel, err)
			}
			if e == nil {
				break
			}
			if n := e.DirEntry.Name(); n != "." && n != ".." {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		return names
	}
	probe, err := gocephfs.OpenSnapDiff(gocephfs.SnapDiffConfig{CMount: m, RootPath: root, RelPath: ".", Snap1: "s1", Snap2: "s2"})
	if errors.Is(err, gocephfs.ErrNotImplemented) {
		t.Logf("the loaded libcephfs has no snapshot diff: %v", err)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	probe.Close()
	// Every subdirectory is listed, changed below or not: the diff prunes
	// no subtree, it is opened again in each directory.
	if got := listed("."); !slices.Equal(got, []string{"d", "same"}) {
		t.Errorf("the diff of the root lists %q, want both directories, d and same", got)
	}
	if got := listed("same"); len(got) != 0 {
		t.Errorf("the diff of same, unchanged, lists %q", got)
	}
	if got := listed("d"); !slices.Equal(got, []string{"data"}) {
		t.Errorf("the diff of d lists %q, want [data]: a release that lists mode, owner or xattr changes too makes a diff-driven incremental copy possible", got)
	}
}
