package fscopy_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

// Migrate never splits a hard link made while it runs. A file that became
// a hard link after its directory was listed (another client links it
// once the walk has stat'ed the first file of the directory) is skipped:
// the walk decides on a fresh stat, not the listing's. And one linked
// right after the walk's own stat of it (so the walk decides on one link)
// is skipped too: the copy finds the link on its baseline stat. Either
// way it is not migrated by one name and split from its other one, and
// the migrate fails naming it (ErrLeftBehind).
// Checked through ceph-fuse: both names are still one inode with 2
// links, in its old pool, while the other file moved to the new one.
// Normal and slow copier.
func TestMigrateFileLinkedAfterTheListing(t *testing.T) {
	fuse := test.FuseMount(t)
	for _, tc := range []struct {
		name string
		self bool // link the file the walk just stat'ed, not the other one
	}{{"after the listing", false}, {"after its walk stat", true}} {
		t.Run(tc.name, func(t *testing.T) { migrateLinkedMeanwhile(t, fuse, tc.self) })
	}
}

func migrateLinkedMeanwhile(t *testing.T, fuse string, self bool) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		d, elsewhere := e.path("d"), e.path("elsewhere")
		e.mkdirs(t, d, elsewhere)
		for i, name := range []string{"x", "y"} {
			e.write(t, d+"/"+name, nil, 0o644, map[uint64][]byte{0: test.RandomData(uint64(70+i), 4096)})
		}
		var (
			once   sync.Once
			linked string // the file linked meanwhile
		)
		o := fscopy.Options{Pool: "cephfs_data2", Files: 1}
		var h fscopy.Hooks
		h.AfterWalkStat = func(src string) {
			once.Do(func() {
				linked = d + "/x"
				if (src == linked) != self {
					linked = d + "/y"
				}
				if err := e.other.Link(linked, elsewhere+"/link"); err != nil {
					t.Error(err)
				}
			})
		}
		var reports []fscopy.Report
		sum, err := mountCopier(t, slow).copierWith(t, o, &reports, h).Migrate(ctx, d)
		if !errors.Is(err, fscopy.ErrLeftBehind) || !strings.Contains(fmt.Sprint(err), linked) {
			t.Fatalf("migrate: %v; want %v naming %s", err, fscopy.ErrLeftBehind, linked)
		}
		if linked == "" {
			t.Fatal("the walk stat'ed no file: the link was never made, the case is void")
		}
		if sum.Files != 1 || sum.Skipped != 1 {
			t.Fatalf("%+v; want one file migrated and the one linked meanwhile skipped (reports %+v)", sum, reports)
		}
		local := func(p string) string { return filepath.Join(fuse, p) }
		a := test.Run(t, "stat", "-c", "%i %h", local(linked))
		b := test.Run(t, "stat", "-c", "%i %h", local(elsewhere+"/link"))
		if a != b || !strings.HasSuffix(strings.TrimSpace(a), " 2") {
			t.Fatalf("%s is %q and its link %q (inode, links): the hard link was split", linked, a, b)
		}
		pool := func(p string) string {
			return strings.TrimSpace(test.Run(t, "getfattr", "--only-values", "-n", "ceph.file.layout.pool", local(p)))
		}
		other := d + "/x"
		if other == linked {
			other = d + "/y"
		}
		if got := pool(linked); got != "cephfs_data" {
			t.Errorf("%s is in pool %s; a skipped file stays in cephfs_data", linked, got)
		}
		if got := pool(other); got != "cephfs_data2" {
			t.Errorf("%s is in pool %s; want it migrated to cephfs_data2", other, got)
		}
	})
}

// Migrate moves a link group whose links are all under the migrated path
// as a whole: its data copied once, every name then the new inode. A
// group with a link outside it is left in its old pool, named in the
// migrate's error (ErrLeftBehind), not skipped with exit 0. A group that
// gains a link after its copy (another client links it before the
// renames) is refused and left whole. Checked through ceph-fuse: inode
// numbers and link counts, pools, contents. Normal and slow copier.
func TestMigrateMovesWholeLinkGroups(t *testing.T) {
	eachClientViewed(t, func(t *testing.T, v fuseView, e *env, slow float64) {
		d, elsewhere := e.path("d"), e.path("elsewhere")
		e.mkdirs(t, d, elsewhere, d+"/sub")
		inside := test.RandomData(80, 5<<20+3)
		outside := test.RandomData(81, 4096)
		late := test.RandomData(82, 8192)
		e.write(t, d+"/a", nil, 0o644, map[uint64][]byte{0: inside})
		e.write(t, d+"/out", nil, 0o644, map[uint64][]byte{0: outside})
		e.write(t, d+"/late", nil, 0o644, map[uint64][]byte{0: late})
		for _, l := range [][2]string{{d + "/a", d + "/sub/a2"}, {d + "/a", d + "/z"},
			{d + "/out", elsewhere + "/out2"}, {d + "/late", d + "/sub/late2"}} {
			if err := e.other.Link(l[0], l[1]); err != nil {
				t.Fatal(err)
			}
		}
		before := map[string]string{}
		for _, p := range []string{d + "/a", d + "/out", d + "/late"} {
			before[p] = v.inode(p)
		}
		o := fscopy.Options{Pool: "cephfs_data2", Files: 1}
		linkedLate := false
		var h fscopy.Hooks
		h.AfterCopy = func(src string) {
			if src == d+"/late" {
				linkedLate = true
				if err := e.other.Link(src, elsewhere+"/late3"); err != nil {
					t.Error(err)
				}
			}
		}
		var reports []fscopy.Report
		sum, err := mountCopier(t, slow).copierWith(t, o, &reports, h).Migrate(ctx, d)
		if !errors.Is(err, fscopy.ErrLeftBehind) || !strings.Contains(err.Error(), d+"/out") {
			t.Fatalf("migrate: %v (%+v); want %v naming %s/out", err, sum, fscopy.ErrLeftBehind, d)
		}
		if !linkedLate {
			t.Fatal("d/late was not copied: the link made after its copy never was, the case is void")
		}
		// The group of a: one new inode, three links, in the new pool.
		a := v.inode(d + "/a")
		for _, p := range []string{d + "/a", d + "/sub/a2", d + "/z"} {
			if got := v.inode(p); got != a || !strings.HasSuffix(got, " 3") || got == before[d+"/a"] {
				t.Errorf("%s is inode/links %q (d/a %q, before %q); want one new inode with 3 links", p, got, a, before[d+"/a"])
			}
			if got := v.pool(p); got != "cephfs_data2" {
				t.Errorf("%s is in pool %s; want cephfs_data2", p, got)
			}
			v.cmp(p, inside)
		}
		// The groups left behind: whole, in the old pool.
		for _, g := range []struct {
			names []string
			data  []byte
		}{{[]string{d + "/out", elsewhere + "/out2"}, outside}, {[]string{d + "/late", d + "/sub/late2", elsewhere + "/late3"}, late}} {
			want := strings.Fields(before[g.names[0]])[0] + " " + fmt.Sprint(len(g.names))
			for _, p := range g.names {
				if got := v.inode(p); got != want {
					t.Errorf("%s is inode/links %q; want %q, the group left whole", p, got, want)
				}
				if got := v.pool(p); got != "cephfs_data" {
					t.Errorf("%s is in pool %s; a group left behind stays in cephfs_data", p, got)
				}
				v.cmp(p, g.data)
			}
		}
		if sum.Files != 1 || sum.HardLinks != 2 {
			t.Errorf("summary %+v; want the group of a moved (1 file, 2 hard links)", sum)
		}
		t.Logf("%v", err)
	})
}
