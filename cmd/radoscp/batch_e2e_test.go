package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// A long-running batch picks up a window changed in the config file for
// its next copy.
func TestE2EBatchReloadsWindow(t *testing.T) {
	conf := test.Conf(t)
	src := test.UniqueName(t)
	a, b := connPool(t, conf, "radoscp-a"), connPool(t, conf, "radoscp-b")
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
