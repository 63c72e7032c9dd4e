package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// deploy/radoscp-nightly-clone, as the systemd service and the CronJob run
// it, on the real cluster: it picks the newest snapshot named as
// snap_schedule names them, clones it into the day's subvolume, writes the
// job's metrics to the textfile, and exits with radoscp's code; run again
// the same day it is refused (the clone exists), and the textfile says so.
func TestE2ENightlyCloneScript(t *testing.T) {
	fuse := test.FuseMount(t)
	conf := test.FS(t)
	name := "svn" + test.UniqueName(t)[len(test.UniqueName(t))-8:]
	e := newSubvolume(t, fuse, name, 0)
	older, newer := "scheduled-2026-11-30-00_00_00", "scheduled-2026-12-01-00_00_00"
	for _, s := range []string{older, newer} {
		if s == newer {
			if err := os.WriteFile(fuse+e.data+"/a/new", []byte("newer\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		test.Ceph(t, "fs", "subvolume", "snapshot", "create", "cephfs", name, s)
	}
	t.Cleanup(func() {
		for _, s := range []string{older, newer} {
			exec.Command("ceph", "-c", conf, "fs", "subvolume", "snapshot", "rm", "cephfs", name, s, "--force").Run()
		}
	})
	target := name + "-nightly"
	removeSubvolumeAtEnd(t, conf, target)
	textfile := filepath.Join(t.TempDir(), "radoscp-nightly-clone.prom")
	script, err := filepath.Abs("../../deploy/radoscp-nightly-clone")
	if err != nil {
		t.Fatal(err)
	}
	run := func() (int, string, string) {
		cmd := exec.Command("sh", script)
		cmd.Env = append(os.Environ(), "RADOSCP="+binary, "CEPH_CONF="+conf, "RADOSCP_ID=admin", "RADOSCP_VOLUME=cephfs",
			"RADOSCP_SUBVOLUME="+name, "RADOSCP_TARGET="+target, "RADOSCP_MAX_RATE=64M", "RADOSCP_METRICS_TEXTFILE="+textfile)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, stdout.String(), stderr.String()
	}
	metrics := func() string {
		b, err := os.ReadFile(textfile)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	code, stdout, stderr := run()
	if code != 0 {
		t.Fatalf("nightly clone: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var sum map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatal(err)
	}
	if sum["state"] != "complete" || sum["snapshot"] != newer || sum["target"] != target {
		t.Fatalf("summary %v; want the newest snapshot %s cloned into %s", sum, newer, target)
	}
	tp := strings.TrimSpace(test.Ceph(t, "fs", "subvolume", "getpath", "cephfs", target))
	snap := path.Join(fuse, path.Dir(e.data), ".snap", newer, path.Base(e.data))
	if out, err := exec.Command("diff", "-r", "--no-dereference", snap, fuse+tp).CombinedOutput(); err != nil {
		t.Fatalf("diff -r newest snapshot, clone: %v\n%s", err, out)
	}
	if out := test.Run(t, "rsync", "-a", "-H", "-n", "-i", "--checksum", snap+"/", fuse+tp+"/"); out != "" {
		t.Fatalf("rsync finds differences:\n%s", out)
	}
	if m := metrics(); !strings.Contains(m, "radoscp_job_success 1") || !strings.Contains(m, "radoscp_job_exit_code 0") {
		t.Fatalf("textfile after the clone:\n%s", m)
	}

	code, _, stderr = run()
	if code != 2 || !strings.Contains(stderr, "exists") {
		t.Fatalf("second run the same day: exit %d, stderr %q; want 2, the clone exists", code, stderr)
	}
	if m := metrics(); !strings.Contains(m, "radoscp_job_success 0") || !strings.Contains(m, "radoscp_job_exit_code 2") {
		t.Fatalf("textfile after the refused run:\n%s", m)
	}
}
