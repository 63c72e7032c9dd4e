package fscopy_test

import (
	"sync"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

// During a tree copy another client moves a file and a directory (with a
// file in it) from a directory the walk has not listed yet (src/b) into
// one it has listed (src/a): the moment the walk stats src/a/x. Neither
// listing has them; the copy looks at the changed source directories again
// at the end and copies them. Before, they were in neither copy and the
// copy exited 0. Read back through ceph-fuse with cmp. Normal and slow
// copier.
func TestTreeCopyFindsWhatMovedIntoAListedDirectory(t *testing.T) {
	eachClientViewed(t, func(t *testing.T, v fuseView, e *env, slow float64) {
		src, dst := e.path("src"), e.path("dst")
		e.mkdirs(t, src, src+"/a", src+"/b", src+"/b/sub")
		x, y, z := test.RandomData(95, 4096), test.RandomData(96, 1<<20+5), test.RandomData(97, 70000)
		e.write(t, src+"/a/x", nil, 0o644, map[uint64][]byte{0: x})
		e.write(t, src+"/b/y", nil, 0o644, map[uint64][]byte{0: y})
		e.write(t, src+"/b/sub/z", nil, 0o644, map[uint64][]byte{0: z})
		var once sync.Once
		moved := false
		o := fscopy.Options{Files: 1}
		var h fscopy.Hooks
		h.AfterWalkStat = func(p string) {
			if p != src+"/a/x" {
				return
			}
			once.Do(func() {
				for _, m := range [][2]string{{src + "/b/y", src + "/a/y"}, {src + "/b/sub", src + "/a/sub"}} {
					if err := e.other.Rename(m[0], m[1]); err != nil {
						t.Error(err)
					}
				}
				moved = true
			})
		}
		var reports []fscopy.Report
		sum, err := mountCopier(t, slow).copierWith(t, o, &reports, h).Copy(ctx, src, dst, true)
		if !moved {
			t.Fatal("the walk never stat'ed src/a/x: nothing was moved, the case is void")
		}
		if err != nil {
			t.Fatalf("copy: %v (%+v)", err, sum)
		}
		v.cmp(dst+"/a/x", x)
		v.cmp(dst+"/a/y", y)
		v.cmp(dst+"/a/sub/z", z)
		if sum.Files != 3 {
			t.Errorf("summary %+v; want the 3 files copied", sum)
		}
	})
}
