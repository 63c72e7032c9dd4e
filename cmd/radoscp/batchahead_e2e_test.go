package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// What a copy refuses by reading the cluster is checked for every line of
// a --batch before the first copy runs: a line that copies onto itself,
// names a missing pool or source, or would clobber with --no-clobber
// (also a destination an earlier line makes) exits 2 naming the line and
// the value (a missing rados: source exits 1 with ENOENT, as cp does), and
// the good line before it has copied nothing (both pools'
// objects of this test, as rados ls and stat list them, with their
// versions, are unchanged). A line whose source an earlier line makes is
// not refused as missing: that batch copies both lines.
func TestE2EBatchRefusesBeforeCopying(t *testing.T) {
	conf := test.Conf(t)
	for _, c := range confs(t, conf) {
		t.Run(c.name, func(t *testing.T) {
			src := test.UniqueName(t)
			a, b := test.OpenPool(t, conf, "radoscp-a"), test.OpenPool(t, conf, "radoscp-b")
			data := writeObjects(t, a, src, 1, oneMiB)
			striped, striperData := makeStriperSource(t, conf, "radoscp-a", oneMiB+100)
			existing := putStriper(t, conf, "radoscp-b", 100)
			d1, d2 := test.UniqueName(t), test.UniqueName(t)
			t.Cleanup(func() {
				removeStriper(t, conf, "radoscp-b", d1)
				removeStriper(t, conf, "radoscp-b", d2)
			})
			cleanupObjects(t, b, d1, 1)
			cleanupObjects(t, b, d2, 1)
			good := fmt.Sprintf("striper:radoscp-a/%s striper:radoscp-b/%s\n", striped, d1)
			state := func() string {
				return poolState(t, conf, "radoscp-a", "TestE2EBatchRefuses") + poolState(t, conf, "radoscp-b", "TestE2EBatchRefuses")
			}
			batch := func(text string, flags ...string) result {
				t.Helper()
				f := filepath.Join(t.TempDir(), "batch")
				writeFile(t, f, text)
				return runCmd(t, nil, append([]string{"cp", "-c", c.conf, "--no-progress", "--object-size", "1M", "--batch", f}, flags...)...)
			}
			for _, bad := range []struct {
				name, line string
				flags      []string
				code       int
				want       []string
			}{
				{"onto-itself", fmt.Sprintf("striper:radoscp-a/%s striper:radoscp-a/%s", striped, striped), nil, 2,
					[]string{"striper:radoscp-a/" + striped, "both the source and the destination"}},
				{"missing-pool", fmt.Sprintf("striper:nopool/%s striper:radoscp-b/%s", striped, d2), nil, 2, []string{`pool "nopool" does not exist`}},
				{"missing-striped-source", fmt.Sprintf("striper:radoscp-a/%s-no striper:radoscp-b/%s", striped, d2), nil, 2,
					[]string{"striper:radoscp-a/" + striped + "-no", "does not exist"}},
				{"missing-raw-source", fmt.Sprintf("rados:radoscp-a/%s-no rados:radoscp-b/%s 1M", src, d2), nil, 1, // as cp exits for it
					[]string{"rados:radoscp-a/" + src + "-no", "ENOENT"}},
				{"no-clobber", fmt.Sprintf("striper:radoscp-a/%s striper:radoscp-b/%s", striped, existing), []string{"--no-clobber"}, 2,
					[]string{"striper:radoscp-b/" + existing, "--no-clobber"}},
				{"no-clobber-earlier-line", fmt.Sprintf("striper:radoscp-a/%s striper:radoscp-b/%s", striped, d1), []string{"--no-clobber"}, 2,
					[]string{"striper:radoscp-b/" + d1, "earlier copy's destination", "--no-clobber"}},
			} {
				before := state()
				r := batch(good+bad.line+"\n", bad.flags...)
				if r.code != bad.code {
					t.Errorf("%s: exit %d, want %d\n%s", bad.name, r.code, bad.code, r.stderr)
				}
				for _, w := range append([]string{"--batch line 2:"}, bad.want...) {
					if !strings.Contains(r.stderr, w) {
						t.Errorf("%s: stderr does not name %q:\n%s", bad.name, w, r.stderr)
					}
				}
				if after := state(); after != before {
					t.Errorf("%s: a refused batch changed the pools:\nbefore:\n%s\nafter:\n%s", bad.name, before, after)
				}
			}

			// Line 2's source is line 1's destination (raw, then striped).
			r := batch(fmt.Sprintf("rados:radoscp-a/%s rados:radoscp-b/%s 1M\nrados:radoscp-b/%s rados:radoscp-b/%s 1M\n", src, d1, d1, d2) +
				fmt.Sprintf("striper:radoscp-a/%s striper:radoscp-b/%s\nstriper:radoscp-b/%s striper:radoscp-b/%s\n", striped, d1, d1, d2))
			if r.code != 0 {
				t.Fatalf("a batch copying what an earlier line made: exit %d\n%s", r.code, r.stderr)
			}
			assertObjects(t, b, d2, data)
			if size := checkPublishedPrefix(t, conf, "radoscp-b", d2, striperData); size != uint64(len(striperData)) {
				t.Errorf("published %d of %d bytes", size, len(striperData))
			}
		})
	}
}
