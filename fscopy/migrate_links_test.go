package fscopy_test

import (
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
// way it is not migrated by one name and split from its other one.
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
		fscopy.SetAfterWalkStat(&o, func(src string) {
			once.Do(func() {
				linked = d + "/x"
				if (src == linked) != self {
					linked = d + "/y"
				}
				if err := e.other.Link(linked, elsewhere+"/link"); err != nil {
					t.Error(err)
				}
			})
		})
		var reports []fscopy.Report
		sum, err := mountCopier(t, slow).copier(t, o, &reports).Migrate(ctx, d)
		if err != nil {
			t.Fatal(err)
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
