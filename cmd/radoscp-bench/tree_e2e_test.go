package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// The smallfiles and tree scenarios, tiny: every contender (radoscp cp -r
// with its defaults, the clone anchor at 1 and 4 files at once, cp -a
// through ceph-fuse, sharded, into an existing directory, and radoscp,
// the clone anchor and cp -a from a snapshot of the source) runs once;
// bench compares each copy with the source, and so do diff -r and rsync
// --checksum through a ceph-fuse mount of the test's own, on the copies
// --keep-copies left. From a snapshot, radoscp makes at most half the
// MDS requests a file cp -a makes.
func TestE2EBenchTreeScenarios(t *testing.T) {
	e := newFSEnv(t)
	local := t.TempDir()
	for _, d := range []string{"a/b/c", "empty", "x"} {
		if err := os.MkdirAll(filepath.Join(local, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string][]byte{
		"a/small":   test.RandomData(1, 3000),
		"a/b/mid":   test.RandomData(2, 1<<20+7), // over 1 MiB: weighs as a large file
		"a/b/c/big": test.RandomData(3, 9<<20+5), // three objects: copy-from in the middle
		"x/empty":   nil,
		"top":       test.RandomData(4, 64<<10),
	}
	for p, data := range files {
		if err := os.WriteFile(filepath.Join(local, p), data, 0o640); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a/small", filepath.Join(local, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(local, "a/b"), 0o750); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(local, "top"), old, old); err != nil {
		t.Fatal(err)
	}
	mnt := test.FuseMount(t)
	for _, tc := range []struct {
		scenario string
		args     []string
		files    int
	}{
		{"smallfiles", []string{"--source-files", "230"}, 230},
		{"tree", []string{"--tree-source", local}, len(files)},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			dir := e.path(tc.scenario)
			args := append([]string{"run", "-c", e.conf, "--scenario", tc.scenario, "--fs-dir", dir, "--repeat", "1", "--keep-copies", "--json"}, tc.args...)
			r := runCmd(t, nil, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			var res benchResult
			if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
				t.Fatalf("%v: %s", err, r.stdout)
			}
			if res.Tree == nil || res.Tree.Files != tc.files || res.SpeedUpOver != "clone:1" {
				t.Fatalf("result header: tree %+v, speed-up over %q; want %d files, over clone:1", res.Tree, res.SpeedUpOver, tc.files)
			}
			if tc.scenario == "tree" && (res.Tree.Symlinks != 1 || res.Tree.Dirs != 6) {
				t.Errorf("tree: %+v; want 1 symlink and 6 directories", res.Tree)
			}
			want := map[string]bool{"fscopy:4:16": true, "clone:1": true, "clone:4": true, "cp-fuse": true, "sharded": true, "sharded-dir": true, "existing": true,
				"snapshot": true, "snapshot-clone": true, "snapshot-cp-fuse": true}
			perFile := map[string]float64{}
			for _, row := range res.Rows {
				c := contender{Mode: row.Mode, Window: row.Window, Files: row.Files}.String()
				if !want[c] {
					t.Errorf("unexpected or repeated row %s", c)
				}
				delete(want, c)
				perFile[c] = row.MDSRequestsPerFile
				if !row.Verified || row.FilesPerS <= 0 || row.CPUSeconds <= 0 || row.MaxRSSBytes == 0 {
					t.Errorf("%s: not verified, or files/s, CPU or peak RSS missing: %+v", c, row)
				}
				// Every file is at least one create at the MDS, which
				// runs here, so its CPU is read too.
				if row.MDSRequestsPerFile < 1 || row.MDSCPUMsPerFile <= 0 {
					t.Errorf("%s: MDS requests %.2f or CPU %.3f ms per file: want at least one request and some CPU", c, row.MDSRequestsPerFile, row.MDSCPUMsPerFile)
				}
				// Through ceph-fuse, compared by programs that are not
				// radoscp's: contents, modes, owners, times, links.
				src, dst := filepath.Join(mnt, dir, "src")+"/", filepath.Join(mnt, dir, strings.ReplaceAll(c, ":", "-")+"-0")+"/"
				if out, err := exec.Command("diff", "-r", "--no-dereference", src, dst).CombinedOutput(); err != nil {
					t.Errorf("%s: diff -r: %v\n%s", c, err, out)
				}
				out, err := exec.Command("rsync", "-a", "-n", "-i", "--checksum", src, dst).CombinedOutput()
				if err != nil || len(strings.TrimSpace(string(out))) > 0 {
					t.Errorf("%s: rsync -a -n -i --checksum finds differences (%v):\n%s", c, err, out)
				}
			}
			for c := range want {
				t.Errorf("no row for %s", c)
			}
			// A snapshot's files are reached from its root, held
			// open, not by walks through SRC/.snap/S, two requests
			// each, as cp -a's are.
			if tc.scenario == "smallfiles" && perFile["snapshot"]*2 > perFile["snapshot-cp-fuse"] {
				t.Errorf("from a snapshot, radoscp cp -r made %.2f MDS requests per file and cp -a %.2f; want radoscp's at most half", perFile["snapshot"], perFile["snapshot-cp-fuse"])
			}
		})
	}
}
