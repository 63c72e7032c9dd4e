package fscopy_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

// With NoClobber, a destination another client creates during the copy
// (after the copy found none, while it reads its source) is left as that
// client made it, and the copy is discarded: a copy of one file is
// refused as one whose destination existed at the start is (ErrUsage), a
// tree copy skips the file. Checked through ceph-fuse: the destination's
// data and link count, and no staging file left.
func TestNoClobberDestinationCreatedMeanwhile(t *testing.T) {
	for _, c := range []struct {
		name string
		size int
		tree bool
	}{{"one-object", 40<<10 + 17, false}, {"three-objects", 9<<20 + 17, false}, {"tree", 9<<20 + 17, true}} {
		t.Run(c.name, func(t *testing.T) {
			eachClient(t, func(t *testing.T, slow float64) {
				e := newEnv(t)
				fuse := test.FuseMount(t) + e.dir
				src, dst := e.path("f"), e.path("g")
				if c.tree {
					e.mkdirs(t, e.path("src"))
					src, dst = e.path("src/f"), e.path("dst/f")
				}
				e.write(t, src, nil, 0o644, map[uint64][]byte{0: test.RandomData(120, c.size)})
				theirs := test.RandomData(121, 7000)
				sst, err := e.fs.Lstat(src)
				if err != nil {
					t.Fatal(err)
				}
				made := false
				o := fscopy.Options{NoClobber: true, WrapObjects: gateOn(sst.Ino, func() {
					f, err := e.other.Open(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
					if err == nil {
						_, err = f.Write(theirs)
						f.Close()
					}
					if err != nil {
						t.Error(err)
					}
					made = true
				})}
				var reports []fscopy.Report
				cp := mountCopier(t, slow).copier(t, o, &reports)
				if c.tree {
					sum, err := cp.Copy(ctx, e.path("src"), e.path("dst"), true)
					if err != nil || sum.Skipped != 1 || sum.Files != 0 {
						t.Fatalf("tree copy onto a file made meanwhile: %+v, %v; want it skipped", sum, err)
					}
				} else if _, err := cp.Copy(ctx, src, dst, false); !errors.Is(err, fscopy.ErrUsage) || !strings.Contains(err.Error(), "no-clobber") {
					t.Fatalf("copy onto a file made meanwhile: %v; want a no-clobber refusal", err)
				}
				if !made {
					t.Fatal("the destination was not made during the copy")
				}
				local := local(t, "theirs", theirs)
				test.Run(t, "cmp", local, fuse+strings.TrimPrefix(dst, e.dir))
				if st := statFuse(t, fuse+strings.TrimPrefix(dst, e.dir)); !strings.HasSuffix(st[0], fmt.Sprintf(",1,%d", len(theirs))) {
					t.Fatalf("destination (inode,links,size) %s: want 1 link, %d bytes", st[0], len(theirs))
				}
				if out := test.Run(t, "find", fuse, "-name", ".radoscp*"); out != "" {
					t.Fatalf("left behind:\n%s", out)
				}
			})
		})
	}
}
