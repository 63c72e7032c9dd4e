package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// The last progress frame, in a pseudo-terminal of 80 columns, normal and
// slow client: never past its totals (a --no-clobber rerun over a tree
// holding a symlink, which is not a file the count counts, and a
// migrate) and never "0B/s" (its rate is over the whole run, not the last
// seconds, in which a finished copy moved nothing). The copy is checked
// through ceph-fuse.
func TestE2ELastFrameTotalsAndRate(t *testing.T) {
	e := newSlowEnv(t, 0.5)
	for _, c := range e.clients() {
		t.Run(c.name, func(t *testing.T) {
			src, dst := "src-"+c.name, "dst-"+c.name
			e.m.MakeDir(e.path(src), 0o755)
			e.m.MakeDir(e.path(src+"/sub"), 0o755)
			for i, f := range []string{"a", "b", "sub/c", "sub/d"} {
				e.write(t, src+"/"+f, test.RandomData(uint64(200+i), 1<<20))
			}
			if err := e.m.Symlink("a", e.path(src+"/link")); err != nil {
				t.Fatal(err)
			}
			frame := func(what string, args ...string) {
				t.Helper()
				code, out := runInPty(t, 80, args...)
				f := finalFrame(t, out)
				if code != 0 {
					t.Fatalf("%s: exit %d\n%s", what, code, out)
				}
				if !strings.Contains(f, "100.0% 4.0MiB/4.0MiB 4/4 files ") {
					t.Errorf("%s: last frame %q, want 100.0%% 4.0MiB/4.0MiB 4/4 files", what, f)
				}
				if m := regexp.MustCompile(` ([0-9.]+)(B|KiB|MiB|GiB)/s `).FindStringSubmatch(f); m == nil {
					t.Errorf("%s: last frame %q has no rate", what, f)
				} else if v, _ := strconv.ParseFloat(m[1], 64); v == 0 {
					t.Errorf("%s: last frame %q shows a rate of 0", what, f)
				}
			}
			cp := []string{"cp", "-c", c.conf, "-r", "--progress", "on", "cephfs:" + e.path(src) + "/", "cephfs:" + e.path(dst)}
			frame("copy", cp...)
			if err := os.Remove(e.local(dst + "/sub/c")); err != nil {
				t.Fatal(err)
			}
			frame("--no-clobber rerun", append(cp, "--no-clobber")...)
			e.same(t, src, dst)
			frame("migrate", "migrate", "-c", c.conf, "--progress", "on", "--pool", "cephfs_data2", "cephfs:"+e.path(dst))
			test.Run(t, "diff", "-r", "--no-dereference", e.local(src), e.local(dst)) // the data, moved
		})
	}
}
