package main

import (
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

var waitingRE = regexp.MustCompile(`waiting for (\d+) cop(y|ies) in flight`)

// The first SIGINT says how many copies it waits for; a second one exits
// at once (130) without waiting for them; what was published is the
// source's prefix and --resume finishes the copy. The destination takes
// the source's 1 MiB objects, so the copy is 32 operations, four rounds
// of the window: into 4 MiB objects it was 8 client read-and-writes,
// all in flight at once, which the first checkpoint (a metadata write,
// delayed like the rest) outlasted, so the interrupt found nothing in
// flight and the copy ended complete (CI, 2026-12-03). Source pinning is
// off, so that no late pin holds the first checkpoint back either.
func TestE2ESecondSIGINTExitsAtOnce(t *testing.T) {
	conf := test.Conf(t)
	slow := test.SlowConf(t, 2.0)
	src, data := makeStriperSource(t, conf, "radoscp-a", 32<<20)
	dst := test.UniqueName(t)
	t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
	run := startCmd(t, nil, "cp", "-c", slow, "--window", "8", "--object-size", "1M", "--pin-source=false", "--no-progress", "--json", "--log-level", "debug",
		"striper:radoscp-a/"+src, "striper:radoscp-b/"+dst)
	waitFor(t, run, 2*time.Minute, "a checkpoint", func() bool { return regexp.MustCompile(`msg=checkpoint`).MatchString(run.log.String()) })
	run.cmd.Process.Signal(syscall.SIGINT)
	waitFor(t, run, 2*time.Minute, "the first interrupt's message", func() bool { return waitingRE.MatchString(run.log.String()) })
	n, _ := strconv.Atoi(waitingRE.FindStringSubmatch(run.log.String())[1])
	if n == 0 {
		t.Fatalf("the interrupt landed with no copy in flight:\n%s", run.log.String())
	}
	run.cmd.Process.Signal(syscall.SIGINT)
	r := run.wait(t, 2*time.Minute)
	// No result line: it exited without waiting for the copies.
	if r.code != exitKilled || r.stdout != "" || !regexp.MustCompile(`again: exiting without waiting`).MatchString(r.stderr) {
		t.Fatalf("exit %d, want %d at once\nstdout: %s\nstderr: %s", r.code, exitKilled, r.stdout, r.stderr)
	}
	published := checkPublishedPrefix(t, conf, "radoscp-b", dst, data)
	t.Logf("second interrupt with %d copies in flight; published %d of %d bytes", n, published, len(data))

	r = runCmd(t, nil, "cp", "-c", conf, "--resume", "--no-progress", "striper:radoscp-a/"+src, "striper:radoscp-b/"+dst)
	if r.code != 0 {
		t.Fatalf("--resume: exit %d\n%s", r.code, r.stderr)
	}
	size, got := striperRead(t, conf, "radoscp-b", dst)
	if size != uint64(len(data)) {
		t.Fatalf("resumed copy: %d bytes, want %d", size, len(data))
	}
	test.Equal(t, "the resumed copy", got, data)
}

// A monitor that does not answer: radoscp says what it waits for, and an
// interrupt during the wait exits at once, nothing written.
func TestE2EDeadMonitorSaysWhatItWaitsFor(t *testing.T) {
	dir := t.TempDir()
	conf := dir + "/ceph.conf"
	writeFile(t, conf, "[global]\nmon host = 127.0.0.1:1\nauth client required = none\n")
	run := startCmd(t, nil, "cp", "-c", conf, "--connect-timeout", "10m", "--no-progress", "--length", "1M",
		"rados:radoscp-a/x", "rados:radoscp-b/y")
	waitFor(t, run, 2*time.Minute, "the message about the monitor", func() bool {
		return regexp.MustCompile(`waiting for a monitor to answer \(mon_host in .*ceph.conf\), up to 10m0s`).MatchString(run.log.String())
	})
	run.cmd.Process.Signal(syscall.SIGINT)
	r := run.wait(t, 2*time.Minute)
	if r.code != 1 || !regexp.MustCompile(`while waiting for a monitor; nothing was written`).MatchString(r.stderr) {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
}
