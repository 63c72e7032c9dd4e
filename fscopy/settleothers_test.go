package fscopy_test

import (
	"strings"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

// Another client changes a file right after radoscp put it in place
// (a copy's destination, or a migrated file), before it settles: chmod
// 600, chown, or a write of the same size. Settling, which sets the
// times once more after the client gave its write caps back, leaves the
// change as it is: mode, owner and mtime read through ceph-fuse are the
// other client's, and the settling says it left the file alone.
func TestSettleKeepsOtherClientsChanges(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		fuse := test.FuseMount(t)
		copier := mountCopier(t, slow)
		stat := func(p string) string {
			return strings.TrimSpace(test.Run(t, "stat", "-c", "%a %u:%g %.9Y", fuse+p))
		}
		for _, c := range []struct {
			name    string
			migrate bool
			change  []string // a command run on the placed file through ceph-fuse
		}{
			{"chmod", false, []string{"chmod", "600"}},
			{"chown", false, []string{"chown", "1234:5678"}},
			{"write", false, []string{"sh", "-c", `printf changed | dd of="$0" bs=1 seek=100 conv=notrunc status=none`}},
			{"migrate-chmod", true, []string{"chmod", "600"}},
			{"migrate-write", true, []string{"sh", "-c", `printf changed | dd of="$0" bs=1 seek=100 conv=notrunc status=none`}},
		} {
			t.Run(c.name, func(t *testing.T) {
				src, dst := e.path(c.name+"-src"), e.path(c.name+"-dst")
				e.write(t, src, nil, 0o644, map[uint64][]byte{0: test.RandomData(70, 5<<20+11)})
				want := ""
				o := fscopy.Options{}
				var h fscopy.Hooks
				h.AfterRename = func(placed string) {
					args := append(append([]string{}, c.change[1:]...), fuse+placed)
					test.Run(t, c.change[0], args...)
					want = stat(placed)
				}
				cp := copier.copierWith(t, o, nil, h)
				if c.migrate {
					dst = src
					o.Pool = "cephfs_data2"
					cp = copier.copierWith(t, o, nil, h)
					if _, err := cp.Migrate(ctx, src); err != nil {
						t.Fatal(err)
					}
				} else if r := cp.CopyFile(ctx, src, dst); r.Err != nil {
					t.Fatal(r.Err)
				}
				fscopy.WaitSettled(cp)
				if got := stat(dst); got != want || want == "" {
					t.Errorf("after settling: %s; the other client left %s", got, want)
				}
				if n := fscopy.SettlesLeft(cp); n != 1 {
					t.Errorf("settling left %d files alone; want 1 (it did not reach the file)", n)
				}
			})
		}
	})
}
