package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radoscp/radoscp/truncate"
)

// slowConf derives from conf a conf whose clients get every OSD reply up to
// max seconds late (ms inject delay, under [client]), so that a copy lasts
// long enough to be raced, killed or resumed. It is named ceph.conf in a
// directory of its own: the conf's basename sets $cluster, which the
// keyring path uses.
func slowConf(t *testing.T, conf string, max string) string {
	t.Helper()
	b, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	inject := "ms inject delay type = osd\nms inject delay probability = 1\nms inject delay max = " + max + "\n"
	text := string(b)
	if i := strings.Index(text, "[client]\n"); i >= 0 {
		i += len("[client]\n")
		text = text[:i] + inject + text[i:]
	} else {
		text += "\n[client]\n" + inject
	}
	path := filepath.Join(t.TempDir(), "ceph.conf")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// confs are the two kinds of client every end-to-end test of the copy lock
// runs with: the cluster's own and a slow one.
func confs(t *testing.T, conf string) []struct{ name, conf string } {
	return []struct{ name, conf string }{{"normal", conf}, {"slow", slowConf(t, conf, "0.5")}}
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
