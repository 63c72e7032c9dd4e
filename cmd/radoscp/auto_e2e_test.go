package main

import (
	"testing"

	"github.com/radoscp/radoscp/test"
)

// --window auto on the real cluster: the copy is exact, the result says the
// window adapted and reports the widest it reached, within --max-window.
func TestE2EWindowAuto(t *testing.T) {
	conf := test.Conf(t)
	src, dst := test.UniqueName(t), test.UniqueName(t)
	a, b := test.OpenPool(t, conf, "radoscp-a"), test.OpenPool(t, conf, "radoscp-b")
	data := writeObjects(t, a, src, 40, oneMiB/4)
	cleanupObjects(t, b, dst, 40)
	r := runCmd(t, nil, "cp", "-c", conf, "--window", "auto", "--max-window", "12", "--object-size", "256K", "--length", "10M", "--json",
		"rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	m := parseJSON(t, r)
	if m["auto_window"] != true || m["objects"] != float64(40) {
		t.Errorf("auto_window/objects: %s", r.stdout)
	}
	if w, _ := m["window"].(float64); w < 1 || w > 12 {
		t.Errorf("window reached %v, want 1..12 (--max-window): %s", m["window"], r.stdout)
	}
	assertObjects(t, b, dst, data[:40])
}
