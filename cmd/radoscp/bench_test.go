package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// radoscp bench only says where the benchmark went: exit 2, one line,
// whatever flags came with it.
func TestBenchMoved(t *testing.T) {
	for _, args := range [][]string{{"bench"}, {"bench", "--pool", "radoscp-a", "--scenario", "kernel"}, {"bench", "report", "--out", "x.md"}} {
		r := runCmd(t, nil, args...)
		msg := strings.TrimRight(r.stderr, "\n")
		if r.code != 2 || r.stdout != "" || strings.Contains(msg, "\n") || !strings.Contains(msg, "radoscp-bench run") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and one line naming radoscp-bench run", args, r.code, r.stdout, r.stderr)
		}
	}
}

// The benchmark laboratory's dependencies stay out of the product: no
// plotting library in radoscp.
func TestNoBenchDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-tags", test.BuildTags(), "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "gonum.org/") || strings.Contains(dep, "radoscp-bench") {
			t.Errorf("radoscp depends on %s", dep)
		}
	}
}
