package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// Every line of a --batch is checked before the first copy runs: a bad
// line anywhere (an address batch refuses, a bad LENGTH, a flag that does
// not apply to the line's copy, a line that is not SRC DST [LENGTH]) is
// exit 2 naming the line and the bad value, with nothing copied, also by
// the good lines before it (the rados CLI finds none of their objects).
func TestE2EBatchChecksEveryLineFirst(t *testing.T) {
	conf := test.Conf(t)
	for _, c := range []struct{ name, conf string }{{"normal", conf}, {"slow", test.SlowConf(t, 0.5)}} {
		t.Run(c.name, func(t *testing.T) {
			src := test.UniqueName(t)
			a := test.OpenPool(t, conf, "radoscp-a")
			writeObjects(t, a, src, 2, oneMiB)
			striped := stripedSource(t, conf, oneMiB)
			d1, d2, d3 := test.UniqueName(t), test.UniqueName(t), test.UniqueName(t)
			cleanupObjects(t, test.OpenPool(t, conf, "radoscp-b"), d1, 2)
			cleanupObjects(t, test.OpenPool(t, conf, "radoscp-b"), d3, 2)
			t.Cleanup(func() { test.RadosCLI(conf, "-p", "radoscp-b", "--striper", "rm", d2) })
			good := fmt.Sprintf("# nightly\nrados:radoscp-a/%s rados:radoscp-b/%s 2M\nstriper:radoscp-a/%s striper:radoscp-b/%s\n",
				src, d1, striped, d2)
			for _, bad := range []struct {
				name, line string
				flags      []string
				want       []string
			}{
				{"cephfs", "cephfs:/a/f cephfs:/a/g", nil, []string{"line 4", "cephfs:/a/f", "not batched"}},
				{"length", fmt.Sprintf("rados:radoscp-a/%s rados:radoscp-b/%s 12Q", src, d3), nil, []string{"line 4", "--length", "12Q"}},
				{"fields", "rados:radoscp-a/" + src, nil, []string{"line 4", "rados:radoscp-a/" + src, "SRC DST [LENGTH]"}},
				// --dst-size fits line 2 (a raw destination), not line 3.
				{"flag", fmt.Sprintf("rados:radoscp-a/%s rados:radoscp-b/%s 1M", src, d3), []string{"--dst-size", "2M"}, []string{"line 3", "--dst-size", "striper:radoscp-b/" + d2}},
			} {
				batch := filepath.Join(t.TempDir(), "batch")
				writeFile(t, batch, good+bad.line+"\n")
				args := append([]string{"cp", "-c", c.conf, "--no-progress", "--object-size", "1M", "--batch", batch}, bad.flags...)
				r := runCmd(t, nil, args...)
				if r.code != 2 {
					t.Errorf("%s: exit %d, want 2\n%s", bad.name, r.code, r.stderr)
				}
				for _, w := range bad.want {
					if !strings.Contains(r.stderr, w) {
						t.Errorf("%s: stderr does not name %q:\n%s", bad.name, w, r.stderr)
					}
				}
				for _, o := range []struct{ args []string }{
					{[]string{"-p", "radoscp-b", "stat", objName(d1, 0)}},
					{[]string{"-p", "radoscp-b", "--striper", "stat", d2}},
					{[]string{"-p", "radoscp-b", "stat", objName(d3, 0)}},
				} {
					if out, err := test.RadosCLI(conf, o.args...); err == nil {
						t.Errorf("%s: rados %q finds what a refused batch wrote: %s", bad.name, o.args, out)
					}
				}
			}
		})
	}
}

// A --dry-run --batch whose dry runs are all fine exits 0 and writes
// nothing; a batch's --json lines carry each copy's src and dst; and the
// job metric radoscp_job_copied_bytes is what all the batch's copies
// copied, not only the last one.
func TestE2EBatchDryRunJSONAndJobBytes(t *testing.T) {
	conf := test.Conf(t)
	for _, c := range []struct{ name, conf string }{{"normal", conf}, {"slow", test.SlowConf(t, 0.5)}} {
		t.Run(c.name, func(t *testing.T) {
			src1, src2 := test.UniqueName(t), test.UniqueName(t)
			a, b := test.OpenPool(t, conf, "radoscp-a"), test.OpenPool(t, conf, "radoscp-b")
			data1, data2 := writeObjects(t, a, src1, 2, oneMiB), writeObjects(t, a, src2, 1, oneMiB)
			dst1, dst2 := test.UniqueName(t), test.UniqueName(t)
			cleanupObjects(t, b, dst1, 2)
			cleanupObjects(t, b, dst2, 1)
			pairs := [][2]string{
				{"rados:radoscp-a/" + src1, "rados:radoscp-b/" + dst1},
				{"rados:radoscp-a/" + src2, "rados:radoscp-b/" + dst2},
			}
			batch := filepath.Join(t.TempDir(), "batch")
			writeFile(t, batch, fmt.Sprintf("%s %s 2M\n%s %s 1M\n", pairs[0][0], pairs[0][1], pairs[1][0], pairs[1][1]))
			prom := filepath.Join(t.TempDir(), "radoscp.prom")
			run := func(extra ...string) []map[string]any {
				t.Helper()
				args := append([]string{"cp", "-c", c.conf, "--no-progress", "--json", "--object-size", "1M",
					"--metrics-textfile", prom, "--batch", batch}, extra...)
				r := runCmd(t, nil, args...)
				if r.code != 0 {
					t.Fatalf("%q: exit %d, want 0\n%s", extra, r.code, r.stderr)
				}
				var lines []map[string]any
				for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
					var m map[string]any
					if err := json.Unmarshal([]byte(l), &m); err != nil {
						t.Fatalf("%v: %s", err, l)
					}
					lines = append(lines, m)
				}
				if len(lines) != 2 {
					t.Fatalf("%d lines, want one per copy:\n%s", len(lines), r.stdout)
				}
				for i, m := range lines {
					if m["src"] != pairs[i][0] || m["dst"] != pairs[i][1] {
						t.Errorf("line %d: src %v dst %v, want %s -> %s", i+1, m["src"], m["dst"], pairs[i][0], pairs[i][1])
					}
				}
				return lines
			}
			for _, m := range run("--dry-run") {
				if m["dry_run"] != true {
					t.Errorf("a dry run's line is not marked dry_run: %v", m)
				}
			}
			for _, o := range []string{objName(dst1, 0), objName(dst1, 1), objName(dst2, 0)} {
				if out, err := test.RadosCLI(conf, "-p", "radoscp-b", "stat", o); err == nil {
					t.Errorf("the dry run wrote %s: %s", o, out)
				}
			}
			run()
			assertObjects(t, b, dst1, data1)
			assertObjects(t, b, dst2, data2)
			text, err := os.ReadFile(prom)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(text), "\nradoscp_job_copied_bytes 3.145728e+06\n") {
				t.Errorf("the textfile does not count the batch's 3 MiB:\n%s", text)
			}
		})
	}
}

// stripedSource writes a striped object of size random bytes to
// radoscp-a with the rados CLI and removes it at the end.
func stripedSource(t *testing.T, conf string, size int) string {
	t.Helper()
	name := test.UniqueName(t)
	in := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(in, test.RandomData(1, size), 0o644); err != nil {
		t.Fatal(err)
	}
	if o, err := test.RadosCLI(conf, "-p", "radoscp-a", "--striper", "put", name, in); err != nil {
		t.Fatalf("rados put: %v\n%s", err, o)
	}
	t.Cleanup(func() { test.RadosCLI(conf, "-p", "radoscp-a", "--striper", "rm", name) })
	return name
}
