package main

import (
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// cp -r's summary in a terminal 80 columns wide, normal and slow client:
// every line fits (the terminal would break it mid-word), broken between
// words; joined back it is the one line a pipe gets. The copy is
// checked through ceph-fuse.
func TestE2ESummaryWrapsAt80Columns(t *testing.T) {
	e := newSlowEnv(t, 0.5)
	e.m.MakeDir(e.path("src"), 0o755)
	e.write(t, "src/f", test.RandomData(93, 3<<20))
	if err := e.m.Symlink("f", e.path("src/l")); err != nil {
		t.Fatal(err)
	}
	for _, c := range e.clients() {
		t.Run(c.name, func(t *testing.T) {
			dst := "d-" + c.name
			code, out := runInPty(t, 80, "cp", "-c", c.conf, "-r", "--no-progress", "cephfs:"+e.path("src")+"/", "cephfs:"+e.path(dst))
			if code != 0 || !strings.Contains(out, "\n  ") {
				t.Fatalf("exit %d, output %q: want 0 and a summary continued on an indented line", code, out)
			}
			for _, l := range strings.Split(out, "\n") {
				if len(l) > 79 {
					t.Errorf("line of %d columns in an 80-column terminal: %q", len(l), l)
				}
			}
			joined := strings.ReplaceAll(strings.TrimSpace(out), "\n  ", " ")
			if !strings.HasPrefix(joined, "1 file (3145728 bytes), 1 symlink, 1 directory;") || !strings.HasSuffix(joined, "; into cephfs:"+e.path(dst)) {
				t.Fatalf("summary joined back: %q", joined)
			}
			e.same(t, "src", dst)
		})
	}
}
