package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// A long-running batch picks up a window changed in the config file for
// its next copy.
func TestE2EBatchReloadsWindow(t *testing.T) {
	conf := test.Conf(t)
	src := test.UniqueName(t)
	a, b := test.OpenPool(t, conf, "radoscp-a"), test.OpenPool(t, conf, "radoscp-b")
	data := writeObjects(t, a, src, 4, oneMiB)
	cfgFile := filepath.Join(t.TempDir(), "radoscp.yaml")
	setWindow := func(w int) {
		if err := os.WriteFile(cfgFile, []byte(fmt.Sprintf("window: %d\nobject-size: 1M\n", w)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	setWindow(2)

	cmd := exec.Command(binary, "cp", "-c", conf, "--config", cfgFile, "--json", "--batch", "-")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := bufio.NewScanner(stdout)
	copyOne := func(dst string) map[string]any {
		cleanupObjects(t, b, dst, 4)
		fmt.Fprintf(stdin, "rados:radoscp-a/%s rados:radoscp-b/%s 4M\n", src, dst)
		if !lines.Scan() {
			t.Fatalf("no result line: %v", lines.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("%v: %s", err, lines.Text())
		}
		assertObjects(t, b, dst, data[:4])
		return m
	}
	if m := copyOne(src + "-1"); m["window"] != 2.0 {
		t.Fatalf("first copy window %v, want 2", m["window"])
	}
	setWindow(5)
	if m := copyOne(src + "-2"); m["window"] != 5.0 {
		t.Fatalf("second copy window %v, want 5 from the changed file", m["window"])
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("batch: %v", err)
	}
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
