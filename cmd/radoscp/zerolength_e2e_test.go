package main

import (
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// A range copy of 0 bytes, anywhere (here past the destination's EOF),
// succeeds and writes nothing, as copy_file_range does: a striped
// destination keeps its size and gets no record, a missing one is not
// created, a raw set gets no lock object. Read back with the rados CLI.
func TestE2EZeroLengthRangeWritesNothing(t *testing.T) {
	conf := test.Conf(t)
	for _, c := range confs(t, conf) {
		t.Run(c.name, func(t *testing.T) {
			src, _ := makeStriperSource(t, conf, "radoscp-a", 3000000)
			dst, data := makeStriperSource(t, conf, "radoscp-b", 2000000)
			fresh := test.UniqueName(t)
			t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", fresh) })
			cp := func(args ...string) map[string]any {
				t.Helper()
				r := runCmd(t, nil, append([]string{"cp", "-c", c.conf, "--no-progress", "--json", "--dst-offset", "100M", "--length", "0"}, args...)...)
				if r.code != 0 {
					t.Fatalf("%v: exit %d, want 0: %s%s", args, r.code, r.stdout, r.stderr)
				}
				return parseJSON(t, r)
			}

			m := cp("striper:radoscp-a/"+src, "striper:radoscp-b/"+dst)
			if m["bytes"] != float64(0) || m["published_eof"] != float64(len(data)) {
				t.Fatalf("existing striped destination: %v", m)
			}
			if size, got := striperRead(t, conf, "radoscp-b", dst); size != uint64(len(data)) {
				t.Fatalf("striper.size %d, want %d", size, len(data))
			} else {
				test.Equal(t, "the destination", got, data)
			}
			if out, err := test.RadosCLI(conf, "-p", "radoscp-b", "getxattr", dst+".0000000000000000", "radoscp.source"); err == nil {
				t.Fatalf("a record was left: %s", out)
			}

			if m := cp("striper:radoscp-a/"+src, "striper:radoscp-b/"+fresh); m["published_eof"] != float64(0) {
				t.Fatalf("new striped destination: %v", m)
			}
			if left := striperObjects(t, conf, "radoscp-b", fresh); len(left) != 0 {
				t.Fatalf("a copy of nothing created %v", left)
			}

			raw := test.UniqueName(t)
			writeObjects(t, test.OpenPool(t, conf, "radoscp-a"), raw, 1, oneMiB)
			cp("--object-size", "1M", "rados:radoscp-a/"+raw, "rados:radoscp-b/"+fresh)
			if left := listNamed(t, conf, "radoscp-b", fresh); len(left) != 0 {
				t.Fatalf("a raw copy of nothing wrote %v", left)
			}

			// --no-clobber still refuses an existing destination.
			r := runCmd(t, nil, "cp", "-c", c.conf, "--no-progress", "--no-clobber", "--dst-offset", "100M", "--length", "0",
				"striper:radoscp-a/"+src, "striper:radoscp-b/"+dst)
			if r.code != 2 || !strings.Contains(r.stderr, "--no-clobber") {
				t.Fatalf("--no-clobber: exit %d, want 2: %s", r.code, r.stderr)
			}
		})
	}
}
