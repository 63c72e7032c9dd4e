package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/radoscp/radoscp/test"
)

// A long-running batch picks up a window changed in the config file for
// its next copy. radoscp's stdout is a pipe of one page that the test
// fills: radoscp writes the first copy's line only after that copy, waits
// there in write(2) (which the test sees in /proc), and cannot load the
// configuration for the second copy until the test, having changed the
// file, drains the pipe.
func TestE2EBatchReloadsWindow(t *testing.T) {
	conf := test.Conf(t)
	src := test.UniqueName(t)
	a, b := test.OpenPool(t, conf, "radoscp-a"), test.OpenPool(t, conf, "radoscp-b")
	data := writeObjects(t, a, src, 4, oneMiB)
	cleanupObjects(t, b, src+"-1", 4)
	cleanupObjects(t, b, src+"-2", 4)
	cfgFile := filepath.Join(t.TempDir(), "radoscp.yaml")
	setWindow := func(w int) {
		if err := os.WriteFile(cfgFile, []byte(fmt.Sprintf("window: %d\nobject-size: 1M\n", w)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	setWindow(2)
	out, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	size, err := unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(bytes.Repeat([]byte("\n"), size)); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "cp", "-c", conf, "--config", cfgFile, "--json", "--batch", "-")
	cmd.Stdin = strings.NewReader(fmt.Sprintf("rados:radoscp-a/%s rados:radoscp-b/%s-1 4M\nrados:radoscp-a/%s rados:radoscp-b/%s-2 4M\n", src, src, src, src))
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for !inPipeWrite(t, cmd.Process.Pid) {
		select {
		case err := <-exited:
			t.Fatalf("radoscp ended (%v) before writing the first copy's line", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	setWindow(5)
	stdout, _ := io.ReadAll(out)
	if err := <-exited; err != nil {
		t.Fatalf("batch: %v\n%s", err, stdout)
	}
	lines := strings.Fields(string(stdout))
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), stdout)
	}
	for i, want := range []float64{2, 5} {
		var m map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &m); err != nil {
			t.Fatalf("%v: %s", err, lines[i])
		}
		if m["window"] != want {
			t.Errorf("copy %d window %v, want %v (from the file as it was then)", i+1, m["window"], want)
		}
	}
	assertObjects(t, b, src+"-1", data)
	assertObjects(t, b, src+"-2", data)
}

// Each copy of a --batch shows its own progress, from 0 to 100% of its own
// size: the counts are not carried over from the copy before.
func TestE2EBatchProgressPerCopy(t *testing.T) {
	conf, src, dst, _, _, _ := copySetup(t, 2)
	_, src2, dst2, _, _, _ := copySetup(t, 2)
	batch := filepath.Join(t.TempDir(), "batch")
	writeFile(t, batch, fmt.Sprintf("rados:radoscp-a/%s rados:radoscp-b/%s 2M\nrados:radoscp-a/%s rados:radoscp-b/%s 2M\n", src, dst, src2, dst2))
	r := runCmd(t, nil, "cp", "-c", conf, "--object-size", "1M", "--progress", "on", "--batch", batch)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var finals []string
	for _, line := range strings.Split(r.stderr, "\n") {
		if i := strings.LastIndex(line, "\r"); i >= 0 && strings.Contains(line, "%") {
			finals = append(finals, strings.TrimSpace(line[i+1:]))
		}
	}
	if len(finals) != 2 {
		t.Fatalf("%d final progress lines, want one per copy: %q", len(finals), r.stderr)
	}
	for i, f := range finals {
		if !strings.Contains(f, "100.0% 2.0MiB/2.0MiB 2 obj ") {
			t.Errorf("copy %d ends its progress at %q, want 100.0%% 2.0MiB/2.0MiB 2 obj", i+1, f)
		}
	}
}

// inPipeWrite says whether a thread of process pid waits in a write to
// its stdout (the full pipe): /proc/PID/task/TID/syscall begins with the
// number of write(2) and fd 1.
func inPipeWrite(t *testing.T, pid int) bool {
	t.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/syscall", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range tasks {
		if b, err := os.ReadFile(f); err == nil && strings.HasPrefix(string(b), fmt.Sprintf("%d 0x1 ", unix.SYS_WRITE)) {
			return true
		}
	}
	return false
}
