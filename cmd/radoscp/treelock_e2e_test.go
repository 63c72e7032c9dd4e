package main

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// Two runs of one tree copy at once, OSD replies slow so that the first
// is still copying when the second starts (normal and slow client for
// the second), into a new target (its staging directory's lock) and into
// an existing directory (the target's own lock): the second exits 1 with
// one line naming the first run's pid, and writes nothing; the first
// finishes, exact (diff -r and rsync through ceph-fuse), and removes the
// tree mark and the owner record (getfattr finds neither).
func TestE2EConcurrentTreeCopies(t *testing.T) {
	e := newSlowEnv(t, 1.0)
	e.m.MakeDir(e.path("src"), 0o755)
	for i, f := range []string{"a", "b", "c"} {
		e.write(t, "src/"+f, test.RandomData(uint64(80+i), 8<<20+i))
	}
	for _, c := range e.clients() {
		for _, existing := range []bool{false, true} {
			name := c.name + "-new"
			if existing {
				name = c.name + "-existing"
			}
			t.Run(name, func(t *testing.T) {
				dst := "dst-" + name
				if existing {
					if err := e.m.MakeDir(e.path(dst), 0o755); err != nil {
						t.Fatal(err)
					}
				}
				concurrentTreeCopies(t, e, c.conf, dst)
			})
		}
	}
}

// concurrentTreeCopies starts the copy of src's contents to dst on the
// slow client, runs it again on conf while it copies, and checks both.
func concurrentTreeCopies(t *testing.T, e *slowEnv, conf, dst string) {
	args := func(conf string) []string {
		return []string{"cp", "-c", conf, "-r", "--window", "1", "--files", "1", "--log-level", "debug", "--no-progress",
			"cephfs:" + e.path("src") + "/", "cephfs:" + e.path(dst)}
	}
	first := startCmd(t, nil, args(e.slow)...)
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(first.log.String(), "msg=checkpoint") {
		if !first.running() || time.Now().After(deadline) {
			t.Fatalf("the first run made no checkpoint while running\n%s", first.log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	second := runCmd(t, nil, args(conf)...)
	if !first.running() {
		t.Fatal("the first run ended before the second one ran: they did not overlap")
	}
	msg := "radoscp pid " + itoa(first.cmd.Process.Pid)
	if second.code != 1 || strings.Count(second.stderr, msg) != 1 || strings.Count(second.stderr, "another copy is writing") != 1 {
		t.Fatalf("second run: exit %d\nstdout: %s\nstderr: %s\nwant exit 1 and one line naming the first run (%s)", second.code, second.stdout, second.stderr, msg)
	}
	r := first.wait(t, 3*time.Minute)
	if r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	e.same(t, "src", dst)
	for _, x := range []string{"user.radoscp.tree", "user.radoscp.owner"} {
		if out, err := exec.Command("getfattr", "--only-values", "-n", x, e.local(dst)).CombinedOutput(); err == nil {
			t.Errorf("%s still has %s = %q after the copy", dst, x, out)
		}
	}
}
