package main

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
	"github.com/radoscp/radoscp/truncate"
)

// confs are the two kinds of client every end-to-end test of the copy lock
// runs with: the cluster's own and a slow one.
func confs(t *testing.T, conf string) []struct{ name, conf string } {
	return []struct{ name, conf string }{{"normal", conf}, {"slow", test.SlowConf(t, 0.5)}}
}

// copyLockHolders lists the cookies holding radoscp's copy lock on oid, as
// `rados lock info` (not radoscp) reports them.
func copyLockHolders(t *testing.T, conf, pool, oid string) []string {
	t.Helper()
	out, err := exec.Command("rados", "-c", conf, "-p", pool, "lock", "info", oid, truncate.CopyLockName, "--format", "json").Output()
	if err != nil {
		return nil // no object or no lock yet
	}
	var info struct {
		Lockers []struct {
			Name, Cookie string
		}
	}
	if err := json.Unmarshal(out, &info); err != nil {
		t.Fatalf("rados lock info %s: %v: %s", oid, err, out)
	}
	var cookies []string
	for _, l := range info.Lockers {
		cookies = append(cookies, l.Cookie)
	}
	return cookies
}

// waitFor polls cond every 100 ms until it holds, failing t after limit or
// once run has ended (the condition had to happen while it ran).
func waitFor(t *testing.T, run *bgRun, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if run != nil && !run.running() {
			r := run.wait(t, time.Second)
			t.Fatalf("the run ended (exit %d) before %s\nstdout: %s\nstderr: %s", r.code, what, r.stdout, r.stderr)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s", what, limit)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// striperSize is striped object name's striper.size as `rados getxattr`
// reads it (0 if it cannot be read yet), cheap enough to poll.
func striperSize(t *testing.T, conf, pool, name string) uint64 {
	t.Helper()
	out, err := exec.Command("rados", "-c", conf, "-p", pool, "getxattr", name+".0000000000000000", "striper.size").Output()
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseUint(strings.TrimSpace(string(out)), 10, 64)
	return n
}
