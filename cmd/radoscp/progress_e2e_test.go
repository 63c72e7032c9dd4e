package main

import (
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// finalFrame is the last progress frame a run drew on stderr.
func finalFrame(t *testing.T, stderr string) string {
	t.Helper()
	var last string
	for _, line := range strings.Split(stderr, "\n") {
		if i := strings.LastIndex(line, "\r\033[K"); i >= 0 {
			last = strings.TrimSpace(line[i+len("\r\033[K"):])
		}
	}
	return last
}

// cp -r's progress line, normal and slow client, counts the tree
// alongside the copy and ends at 100% of its bytes and files; a rerun,
// which copies nothing (every file unchanged), ends there too. The copy
// is then checked through ceph-fuse.
func TestE2ETreeProgressShowsTotal(t *testing.T) {
	e := newSlowEnv(t, 0.5)
	for _, c := range e.clients() {
		t.Run(c.name, func(t *testing.T) {
			src, into := "src-"+c.name, "into-"+c.name
			e.m.MakeDir(e.path(src), 0o755)
			e.m.MakeDir(e.path(src+"/sub"), 0o755)
			e.m.MakeDir(e.path(into), 0o755)
			for i, f := range []string{"a", "b", "c", "sub/d", "sub/e", "sub/f"} {
				e.write(t, src+"/"+f, test.RandomData(uint64(80+i), 2<<20))
			}
			for _, run := range []string{"copy", "rerun"} {
				r := runCmd(t, nil, "cp", "-c", c.conf, "-r", "--progress", "on", "--files", "2", "cephfs:"+e.path(src), "cephfs:"+e.path(into))
				if r.code != 0 {
					t.Fatalf("%s: exit %d\n%s", run, r.code, r.stderr)
				}
				if f := finalFrame(t, r.stderr); !strings.Contains(f, "100.0% 12.0MiB/12.0MiB 6/6 files") {
					t.Fatalf("%s: last progress frame %q, want 100.0%% 12.0MiB/12.0MiB 6/6 files\n%q", run, f, r.stderr)
				}
			}
			e.same(t, src, into+"/"+src)
		})
	}
}

// A dry run of cp -r, normal and slow client, first and after the copy
// (every file unchanged), shows the counted tree's total: its last frame
// is 100% of the bytes and files, never past them nor an open "0B+"
// total. The copy is checked through ceph-fuse.
func TestE2EDryRunProgressShowsTotal(t *testing.T) {
	e := newSlowEnv(t, 0.5)
	e.m.MakeDir(e.path("src"), 0o755)
	for i, f := range []string{"a", "b", "c"} {
		e.write(t, "src/"+f, test.RandomData(uint64(120+i), 2<<20))
	}
	for _, c := range e.clients() {
		t.Run(c.name, func(t *testing.T) {
			dst := "dst-" + c.name
			dry := func(when string) {
				r := runCmd(t, nil, "cp", "-c", c.conf, "-r", "--dry-run", "--progress", "on", "cephfs:"+e.path("src")+"/", "cephfs:"+e.path(dst))
				if f := finalFrame(t, r.stderr); r.code != 0 || !strings.Contains(f, "100.0% 6.0MiB/6.0MiB 3/3 files") {
					t.Fatalf("dry run %s: exit %d, last frame %q; want 100.0%% 6.0MiB/6.0MiB 3/3 files\n%q", when, r.code, f, r.stderr)
				}
			}
			dry("before the copy")
			if r := runCmd(t, nil, "cp", "-c", c.conf, "-r", "--no-progress", "cephfs:"+e.path("src")+"/", "cephfs:"+e.path(dst)); r.code != 0 {
				t.Fatalf("copy: exit %d\n%s", r.code, r.stderr)
			}
			dry("after the copy")
			e.same(t, "src", dst)
		})
	}
}
