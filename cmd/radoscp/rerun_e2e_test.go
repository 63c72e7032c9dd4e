package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// Two runs of one CephFS copy started together, OSD replies slow so the
// first is still copying when the second starts: the second finds the
// first's staging file locked, exits 1 naming it and touches nothing; the
// first finishes exact. The staging file carries the copy's start as its
// times while it exists.
func TestE2EConcurrentCephFSCopies(t *testing.T) {
	e := newSlowEnv(t, 1.0)
	e.write(t, "f", test.RandomData(31, 24<<20))
	started := time.Now()
	args := []string{"cp", "-c", e.slow, "--window", "1", "--log-level", "debug", "--no-progress",
		"cephfs:" + e.path("f"), "cephfs:" + e.path("c")}
	first := startCmd(t, nil, args...)
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(first.log.String(), "msg=checkpoint") {
		if !first.running() || time.Now().After(deadline) {
			t.Fatalf("the first run made no checkpoint while running\n%s", first.log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	st, err := os.Stat(e.local(".radoscp.c"))
	if err != nil {
		t.Fatalf("the first run's staging file: %v", err)
	}
	if d := st.ModTime().Sub(started); d < -time.Minute || d > time.Minute {
		t.Fatalf("staging file's mtime %s, the copy started at %s", st.ModTime(), started)
	}
	second := runCmd(t, nil, args...)
	if !first.running() {
		t.Fatal("the first run ended before the second one ran: they did not overlap")
	}
	if second.code != 1 || !strings.Contains(second.stderr, "another copy is writing") ||
		!strings.Contains(second.stderr, "radoscp pid "+itoa(first.cmd.Process.Pid)) {
		t.Fatalf("second run: exit %d, stderr %q; want 1 naming the first run's pid %d", second.code, second.stderr, first.cmd.Process.Pid)
	}
	r := first.wait(t, 2*time.Minute)
	if r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	e.same(t, "f", "c")
}

// A killed copy's lock dies with its client: once the MDS has given the
// session up (evicted here, as an operator would), a rerun takes it over
// and --resume finishes the copy.
func TestE2EKilledCopysLockTakenOver(t *testing.T) {
	e := newSlowEnv(t, 1.0)
	e.write(t, "f", test.RandomData(32, 16<<20))
	run := startCmd(t, nil, "cp", "-c", e.slow, "--window", "1", "--log-level", "debug", "--no-progress",
		"cephfs:"+e.path("f"), "cephfs:"+e.path("c"))
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(run.log.String(), "msg=checkpoint") {
		if !run.running() || time.Now().After(deadline) {
			t.Fatalf("no checkpoint before the copy ended\n%s", run.log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	run.cmd.Process.Signal(syscall.SIGKILL)
	run.wait(t, time.Minute)
	if _, err := os.Stat(e.local(".radoscp.c")); err != nil {
		t.Fatalf("the kill landed after the copy: no staging file (%v)", err)
	}
	test.EvictClient(t, run.cmd.Process.Pid)
	r := runCmd(t, nil, "cp", "-c", e.slow, "--window", "1", "--resume", "--json", "cephfs:"+e.path("f"), "cephfs:"+e.path("c"))
	if r.code != 0 || !strings.Contains(r.stdout, `"resumed":true`) {
		t.Fatalf("rerun: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	e.same(t, "f", "c")
}

// A tree copy to a new name, interrupted (SIGINT while slow), then rerun
// with --resume: it continues into the same target, not into
// TARGET/NAME, and leaves no staging file and no mark behind.
func TestE2ETreeResumedIntoNewName(t *testing.T) {
	e := newSlowEnv(t, 1.0)
	e.m.MakeDir(e.path("big"), 0o755)
	e.write(t, "big/f1", test.RandomData(33, 20<<20))
	e.write(t, "big/f2", test.RandomData(34, 6<<20))
	run := startCmd(t, nil, "cp", "-r", "-c", e.slow, "--window", "1", "--files", "1", "--log-level", "debug", "--no-progress",
		"cephfs:"+e.path("big"), "cephfs:"+e.path("bigcopy"))
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(run.log.String(), "msg=checkpoint") {
		if !run.running() || time.Now().After(deadline) {
			t.Fatalf("no checkpoint before the copy ended\n%s", run.log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	run.cmd.Process.Signal(syscall.SIGINT)
	if r := run.wait(t, 2*time.Minute); r.code == 0 {
		t.Fatalf("the interrupt landed after the copy (exit 0)\n%s", r.stderr)
	}
	r := runCmd(t, nil, "cp", "-r", "-c", e.conf, "--resume", "--json", "cephfs:"+e.path("big"), "cephfs:"+e.path("bigcopy"))
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(e.local("bigcopy/big")); !os.IsNotExist(err) {
		t.Fatalf("the resume copied into bigcopy/big: %v", err)
	}
	e.same(t, "big", "bigcopy")
	if names := e.names(t, "bigcopy"); len(names) != 2 {
		t.Fatalf("bigcopy holds %v, want f1 and f2 only", names)
	}
	if v, err := e.m.GetXattr(e.path("bigcopy"), "user.radoscp.tree"); err == nil {
		t.Fatalf("the finished copy still carries its mark %q", v)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// --no-clobber on CephFS: a file copy onto an existing file exits 2 and
// leaves it; a tree copy skips what exists and copies the rest.
func TestE2ECephFSNoClobber(t *testing.T) {
	e := newFSEnv(t)
	e.m.MakeDir(e.path("src"), 0o755)
	e.write(t, "src/a", test.RandomData(81, 5<<20))
	e.write(t, "src/b", test.RandomData(82, 1<<20))
	e.m.MakeDir(e.path("dst"), 0o755)
	e.m.MakeDir(e.path("dst/src"), 0o755)
	e.write(t, "dst/src/a", []byte("keep me"))
	r := runCmd(t, nil, "cp", "-c", e.conf, "--no-clobber", "cephfs:"+e.path("src/a"), "cephfs:"+e.path("dst/src/a"))
	if r.code != 2 || !strings.Contains(r.stderr, "--no-clobber") {
		t.Fatalf("file onto an existing one: exit %d, %q; want 2 naming --no-clobber", r.code, r.stderr)
	}
	// cp's rule: dst exists, so the copy is dst/src.
	r = runCmd(t, nil, "cp", "-r", "-c", e.conf, "--no-clobber", "--json", "cephfs:"+e.path("src"), "cephfs:"+e.path("dst"))
	if r.code != 0 {
		t.Fatalf("tree: exit %d\n%s", r.code, r.stderr)
	}
	if got, _ := e.read(t, "dst/src/a"); string(got) != "keep me" {
		t.Fatalf("an existing file was replaced under --no-clobber (%d bytes)", len(got))
	}
	want, _ := e.read(t, "src/b")
	if got, ok := e.read(t, "dst/src/b"); !ok || !bytes.Equal(got, want) {
		t.Fatal("the missing file was not copied")
	}
	if !strings.Contains(r.stdout, `"outcome":"skipped"`) {
		t.Fatalf("the skip is not reported: %s", r.stdout)
	}
}
