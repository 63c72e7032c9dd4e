package main

import (
	"os"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// A rerun of cp -r --verify, normal and slow client, over a destination
// file changed in place with its mtime put back (the quick check passes)
// copies it again and says so on a line of its own; the file is then the
// source's again (cmp and rsync through ceph-fuse).
func TestE2EVerifyRepairedFileSaysSo(t *testing.T) {
	e := newSlowEnv(t, 0.5)
	e.m.MakeDir(e.path("src"), 0o755)
	e.write(t, "src/f", test.RandomData(97, 2<<20+5))
	e.write(t, "src/same", test.RandomData(98, 1<<20))
	for _, c := range e.clients() {
		t.Run(c.name, func(t *testing.T) {
			dst := "dst-" + c.name
			cp := func(extra ...string) result {
				args := append([]string{"cp", "-c", c.conf, "-r", "--no-progress"}, extra...)
				return runCmd(t, nil, append(args, "cephfs:"+e.path("src")+"/", "cephfs:"+e.path(dst))...)
			}
			if r := cp(); r.code != 0 {
				t.Fatalf("copy: exit %d\n%s", r.code, r.stderr)
			}
			st, err := os.Stat(e.local("src/f"))
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(e.local(dst+"/f"), os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt([]byte("changed in place"), 1<<20); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if err := os.Chtimes(e.local(dst+"/f"), st.ModTime(), st.ModTime()); err != nil {
				t.Fatal(err)
			}
			r := cp("--verify")
			line := "radoscp: " + e.path("src/f") + ": copied again: "
			if r.code != 0 || strings.Count(r.stderr, line) != 1 || strings.Contains(r.stderr, e.path("src/same")) || !strings.Contains(r.stdout, "1 file") {
				t.Fatalf("--verify rerun: exit %d\nstdout: %s\nstderr: %s\nwant one line %q, and none for src/same", r.code, r.stdout, r.stderr, line)
			}
			e.same(t, "src", dst)
		})
	}
}
