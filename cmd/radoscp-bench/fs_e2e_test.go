package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/config"
)

// The cephfs scenario, tiny: every contender runs once, in a child
// process, and its copy is compared with the sources by bench itself.
func TestE2EBenchCephFS(t *testing.T) {
	e := newFSEnv(t)
	const files, size = 3, 9 << 20 // object 0, one whole object, a partial one
	dir := e.path("bench")
	r := runCmd(t, nil, "run", "-c", e.conf, "--scenario", "cephfs", "--fs-dir", dir, "--source-files", fmt.Sprint(files),
		"--file-size", "9M", "--files-at-once", "1,2", "--windows", "1,4", "--repeat", "1", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	var res benchResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if res.Scenario != "cephfs" || res.Files != files || res.FileSize != size || !strings.Contains(res.Anchor, "8 MiB chunks") || res.SpeedUpOver != "clone:1" {
		t.Errorf("result header %+v", res)
	}
	want := map[string]bool{}
	for _, c := range []string{"clone:1", "clone:2", "fscopy:1:1", "fscopy:1:4", "fscopy:2:1", "fscopy:2:4", "fscopy:1:auto", "fscopy:2:auto"} {
		want[c] = true
	}
	total := uint64(files * size)
	for _, row := range res.Rows {
		c := contender{Mode: row.Mode, Window: row.Window, Files: row.Files}.String()
		if !want[c] {
			t.Errorf("unexpected or repeated row %s", c)
		}
		delete(want, c)
		if !row.Verified || row.MiBps <= 0 || row.MaxRSSBytes == 0 || !row.ClientMeasure {
			t.Errorf("%s: not verified, or MiB/s, peak RSS or client bytes missing: %+v", c, row)
		}
		switch {
		case row.Mode == "clone" && row.ClientBytes != 2*total:
			t.Errorf("%s moved %d bytes through the client, want %d (read and write)", c, row.ClientBytes, 2*total)
		case row.Mode == "fscopy" && row.ClientBytes >= 2*total:
			t.Errorf("%s moved %d bytes through the client, want less than a client copy's %d", c, row.ClientBytes, 2*total)
		case c == "clone:1" && row.SpeedUp != 1:
			t.Errorf("the anchor's speed-up over itself is %v", row.SpeedUp)
		}
	}
	for c := range want {
		t.Errorf("no row for %s", c)
	}
	if _, ok := e.read(t, "bench"); ok {
		t.Errorf("bench left cephfs:%s behind", dir)
	}
}

func TestE2EBenchCephFSBadFlags(t *testing.T) {
	e := newFSEnv(t)
	for _, tc := range []struct{ flag, value, says string }{
		{"--file-size", "0", `--file-size "0"`},
		{"--file-size", "1.5M", `"1.5M"`},
		{"--source-files", "0", "--source-files 0"},
		{"--files-at-once", "1,x", `--files-at-once "1,x"`},
		{"--modes", "clone,offload", `unknown cephfs mode "offload"`},
		{"--fs-dir", "bench", `--fs-dir "bench"`},
	} {
		r := runCmd(t, nil, "run", "-c", e.conf, "--scenario", "cephfs", "--fs-dir", e.path("bench"), tc.flag, tc.value)
		if r.code != 2 || !strings.Contains(r.stderr, tc.says) {
			t.Errorf("%s %s: exit %d, stderr %q; want 2 and %q", tc.flag, tc.value, r.code, r.stderr, tc.says)
		}
	}
	if _, ok := e.read(t, "bench"); ok {
		t.Errorf("a refused bench made cephfs:%s", e.path("bench"))
	}
}

// bench's own check of a copy: identical files pass; a changed byte, a
// missing file or an extra one fail.
func TestBenchVerifyFSCopy(t *testing.T) {
	e := newFSEnv(t)
	mnt, err := mountBenchFS(config.Config{Conf: e.conf}, "", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer mnt.close()
	src := e.path("src")
	sums, err := ensureFSSources(mnt.fs, e.dir, src, 2, 3<<20+5)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.m.MakeDir(e.path("dst"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"file-0000", "file-0001"} {
		data, _ := e.read(t, "src/"+name)
		e.write(t, "dst/"+name, data)
	}
	dst := e.path("dst")
	if err := verifyFSCopy(mnt.fs, dst, sums); err != nil {
		t.Fatalf("identical copy: %v", err)
	}
	data, _ := e.read(t, "dst/file-0001")
	data[3<<20] ^= 1
	if err := e.m.Unlink(e.path("dst/file-0001")); err != nil {
		t.Fatal(err)
	}
	e.write(t, "dst/file-0001", data)
	if err := verifyFSCopy(mnt.fs, dst, sums); err == nil || !strings.Contains(err.Error(), "file-0001 differs") {
		t.Errorf("changed byte: %v", err)
	}
	e.write(t, "dst/extra", nil)
	if err := verifyFSCopy(mnt.fs, dst, sums); err == nil || !strings.Contains(err.Error(), "3 entries") {
		t.Errorf("extra file: %v", err)
	}
}
