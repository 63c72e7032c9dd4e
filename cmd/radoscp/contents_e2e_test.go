package main

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// rsync's trailing-slash convention, normal and slow client: cp -r
// cephfs:SRC/ cephfs:DST copies SRC's contents into DST, made by the
// first run, and the same command run again lands in DST again (cp's
// rule would nest DST/SRC); every summary names the top destination. A
// --resume whose target does not exist exits 2 saying there is nothing
// to resume, and writes nothing. Checked through ceph-fuse (diff, rsync).
func TestE2ERerunContentsLandsInPlace(t *testing.T) {
	e := newSlowEnv(t, 0.5)
	e.m.MakeDir(e.path("src"), 0o755)
	e.m.MakeDir(e.path("src/sub"), 0o750)
	e.write(t, "src/big", test.RandomData(41, 5<<20+7))
	e.write(t, "src/sub/small", []byte("small"))
	if err := e.m.Symlink("big", e.path("src/link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range e.clients() {
		t.Run(c.name, func(t *testing.T) {
			dst := "dst-" + c.name
			cp := func(args ...string) result {
				return runCmd(t, nil, append([]string{"cp", "-c", c.conf, "-r", "--no-progress"}, args...)...)
			}
			r := cp("cephfs:"+e.path("src")+"/", "cephfs:"+e.path(dst))
			if r.code != 0 || !strings.HasSuffix(strings.TrimSpace(r.stdout), "; into cephfs:"+e.path(dst)) {
				t.Fatalf("first run: exit %d\nstdout: %s\nstderr: %s\nwant the summary to end with: into cephfs:%s", r.code, r.stdout, r.stderr, e.path(dst))
			}
			e.same(t, "src", dst)
			r = cp("--json", "cephfs:"+e.path("src")+"/", "cephfs:"+e.path(dst))
			lines := jsonLines(t, r)
			if sum := lines[len(lines)-1]; r.code != 0 || sum["into"] != "cephfs:"+e.path(dst) || sum["unchanged"] != 3.0 || sum["files"] != 0.0 {
				t.Fatalf("rerun: exit %d, summary %v; want into cephfs:%s, 3 unchanged (2 files, the symlink), 0 files\nstderr: %s", r.code, sum, e.path(dst), r.stderr)
			}
			if names := e.names(t, dst); slices.Contains(names, "src") || len(names) != 3 {
				t.Fatalf("after the rerun %s holds %v; want big, link, sub", dst, names)
			}
			e.same(t, "src", dst)
			// Without the slash, cp's rule: into DST/src, which is named.
			r = cp("--dry-run", "cephfs:"+e.path("src"), "cephfs:"+e.path(dst))
			if r.code != 0 || !strings.Contains(r.stdout, "; into cephfs:"+e.path(dst+"/src")+"; nothing was written") {
				t.Fatalf("dry run without the slash: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			r = cp("--resume", "cephfs:"+e.path("src"), "cephfs:"+e.path(dst))
			if r.code != 2 || !strings.Contains(r.stderr, "nothing to resume: cephfs:"+e.path(dst+"/src")+" does not exist") {
				t.Fatalf("--resume with nothing to resume: exit %d\nstdout: %s\nstderr: %s; want exit 2 saying so", r.code, r.stdout, r.stderr)
			}
			if _, err := os.Lstat(e.local(dst + "/src")); !os.IsNotExist(err) {
				t.Fatalf("after the refused --resume, %s/src: %v; want it absent", dst, err)
			}
			e.same(t, "src", dst)
		})
	}
}
