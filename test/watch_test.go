package test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// report is what a watcher reported, for tests that hold their own one.
type report struct {
	msg   string
	tests []testing.TB
}

func newWatcher(dir string, reports chan<- report) *watcher {
	return &watcher{
		dirs:    map[string]bool{dir: true},
		running: map[testing.TB]time.Time{},
		dead:    map[string]int{},
		report:  func(_ *watcher, msg string, tests []testing.TB) { reports <- report{msg, tests} },
	}
}

// fakeDaemon starts a process with a daemon's command line ("ceph-osd -c
// DIR/ceph.conf -i 1" for osd.1) and marks it wanted, as cluster.sh does.
func fakeDaemon(t *testing.T, dir, name string) *exec.Cmd {
	t.Helper()
	// Debian's own: a shim (pyenv's) would start it under another name.
	const python = "/usr/bin/python3"
	kind, id, _ := strings.Cut(name, ".")
	cmd := &exec.Cmd{Path: python, Args: []string{"ceph-" + kind, "-c", "import time; time.sleep(600)",
		"-c", filepath.Join(dir, "ceph.conf"), "-i", id}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	write(t, filepath.Join(dir, "run", name+".want"), "")
	return cmd
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Runs without a cluster: the watcher over a directory laid out as
// cluster.sh lays one out, with processes standing in for daemons.
func TestWatcherReportsADaemonThatDied(t *testing.T) {
	dir := realDir(t.TempDir())
	write(t, filepath.Join(dir, "ceph.conf"), "[global]\n")
	var log strings.Builder
	log.WriteString("2026-12-02T10:13:00 osd.1 up and serving\n")
	log.WriteString("*** Caught signal (Segmentation fault) **\n in thread 7f1 thread_name:tp_osd_tp\n")
	for i := range 500 {
		fmt.Fprintf(&log, "  -%d> recent event\n", i)
	}
	write(t, filepath.Join(dir, "log", "osd.1.log"), log.String())
	osd1 := fakeDaemon(t, dir, "osd.1")
	stopped := fakeDaemon(t, dir, "osd.2")

	if live := processes(filepath.Join(dir, "ceph.conf")); !live["osd.1"] || !live["osd.2"] {
		t.Fatalf("the stand-in daemons are not seen running: %v", live)
	}
	reports := make(chan report, 10)
	w := newWatcher(dir, reports)
	w.running[t] = time.Now()
	w.poll(time.Now())
	if len(reports) != 0 {
		t.Fatalf("live daemons reported: %q", (<-reports).msg)
	}

	// osd.2 is stopped as cluster.sh stop-daemon stops one: unmarked
	// first.
	if err := os.Remove(filepath.Join(dir, "run", "osd.2.want")); err != nil {
		t.Fatal(err)
	}
	_ = stopped.Process.Kill()
	_ = stopped.Wait()
	// osd.1 dies of a signal, still marked.
	_ = osd1.Process.Signal(syscall.SIGSEGV)
	_ = osd1.Wait()
	w.poll(time.Now())
	if len(reports) != 0 {
		t.Fatalf("reported after one poll (a respawning MDS has no process for a moment): %q", (<-reports).msg)
	}
	w.poll(time.Now())
	if len(reports) != 1 {
		t.Fatalf("%d reports after osd.1 died and osd.2 was stopped, want 1", len(reports))
	}
	r := <-reports
	for _, want := range []string{"ceph daemon osd.1 ", "Caught signal (Segmentation fault)", "thread_name:tp_osd_tp"} {
		if !strings.Contains(r.msg, want) {
			t.Errorf("report lacks %q:\n%s", want, r.msg)
		}
	}
	if strings.Contains(r.msg, "osd.2") || strings.Contains(r.msg, "-499> recent event") {
		t.Errorf("report names the stopped osd.2 or the end of the event dump:\n%s", r.msg)
	}
	if !slices.Contains(r.tests, testing.TB(t)) {
		t.Errorf("report's tests %v lack the running test", r.tests)
	}
	w.poll(time.Now())
	if len(reports) != 0 {
		t.Errorf("osd.1 reported twice")
	}
	if msg := deadDaemons(dir); !strings.Contains(msg, "osd.1") || strings.Contains(msg, "osd.2") {
		t.Errorf("deadDaemons: %q, want osd.1 only", msg)
	}

	// A test past its limit is reported, with no tests to fail (the
	// binary panics).
	w.limit = time.Minute
	w.poll(time.Now().Add(2 * time.Minute))
	r = <-reports
	if !strings.Contains(r.msg, t.Name()) || r.tests != nil {
		t.Errorf("late test's report: %q, tests %v", r.msg, r.tests)
	}
}

// A real daemon that dies of a segmentation fault (as osd.1 did in
// snapshot trimming) is reported with the crash from its log, and a
// later test on that cluster fails at once instead of waiting.
func TestWatcherReportsACrashedOSD(t *testing.T) {
	c := StartCluster(t, false)
	if c == nil {
		return
	}
	unwatchCluster(c.Dir) // this test's own watcher reports to it
	reports := make(chan report, 10)
	w := newWatcher(realDir(c.Dir), reports)
	w.poll(time.Now())
	if len(reports) != 0 {
		t.Fatalf("healthy cluster reported: %q", (<-reports).msg)
	}
	pid, err := os.ReadFile(filepath.Join(c.Dir, "run", "osd.2.pid"))
	pid = bytes.TrimSpace(pid)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("kill", "-SEGV", string(pid)).CombinedOutput(); err != nil {
		t.Fatalf("kill: %v %s", err, out)
	}
	deadline := time.Now().Add(cephTimeout)
	for len(reports) == 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		w.poll(time.Now())
	}
	if len(reports) == 0 {
		t.Fatalf("osd.2 (pid %s) sent SIGSEGV: not reported after %s", pid, cephTimeout)
	}
	r := <-reports
	if !strings.Contains(r.msg, "ceph daemon osd.2 ") || !strings.Contains(r.msg, "Caught signal (Segmentation fault)") {
		t.Errorf("report:\n%s", r.msg)
	}
	f := &fakeTB{real: t}
	watchTest(f, c.Conf)
	if !strings.Contains(f.failed, "osd.2") {
		t.Errorf("a test starting on the cluster with osd.2 dead: %q, want a failure naming it", f.failed)
	}
}

// Snapshot trimming crashes Ceph 16.2's memstore OSDs, so the test
// clusters hold it off: many snapshots removed after writes that made
// clones of every object, then I/O, find every daemon alive, the removed
// snapshots still queued (never trimmed) and the PGs active+clean.
func TestRemovedSnapshotsAreNotTrimmed(t *testing.T) {
	conf := Conf(t)
	if conf == "" {
		return
	}
	var osdmap struct {
		Flags string `json:"flags"`
	}
	if err := json.Unmarshal([]byte(Ceph(t, "osd", "dump", "-f", "json")), &osdmap); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(osdmap.Flags, ","), "nosnaptrim") {
		t.Fatalf("OSD map flags %q lack nosnaptrim", osdmap.Flags)
	}
	pool := Pool(t, 2)
	in := filepath.Join(t.TempDir(), "in")
	put := func(oid, text string) {
		write(t, in, text)
		if out, err := radosCLI(t, "-p", pool, "put", oid, in); err != nil {
			t.Fatalf("rados put %s: %v: %s", oid, err, out)
		}
	}
	const snaps, objects = 12, 8
	for s := range snaps {
		if out, err := radosCLI(t, "-p", pool, "mksnap", fmt.Sprint("s", s)); err != nil {
			t.Fatalf("mksnap: %v: %s", err, out)
		}
		for o := range objects {
			put(fmt.Sprint("o", o), fmt.Sprint("snapshot ", s))
		}
	}
	for s := range snaps {
		if out, err := radosCLI(t, "-p", pool, "rmsnap", fmt.Sprint("s", s)); err != nil {
			t.Fatalf("rmsnap: %v: %s", err, out)
		}
	}
	got := filepath.Join(t.TempDir(), "got")
	for o := range objects {
		put(fmt.Sprint("o", o), "after")
		// Into a file: the CLI may log to its standard error.
		if out, err := radosCLI(t, "-p", pool, "get", fmt.Sprint("o", o), got); err != nil {
			t.Fatalf("rados get o%d: %v: %s", o, err, out)
		}
		if b, err := os.ReadFile(got); err != nil || string(b) != "after" {
			t.Fatalf("o%d after the snapshots' removal: %q, %v", o, b, err)
		}
	}
	// The JSON form lacks the queue: "pool 9 'NAME' ...", then
	// "\tremoved_snaps_queue [1~c]" while snapshots wait for trimming.
	detail := Ceph(t, "osd", "pool", "ls", "detail")
	_, after, _ := strings.Cut(detail, "'"+pool+"'")
	lines := strings.Split(after, "\n")
	if len(lines) < 2 || !strings.HasPrefix(strings.TrimSpace(lines[1]), "removed_snaps_queue [") {
		t.Errorf("pool %s has no removed snapshots queued: were they trimmed?\n%s", pool, detail)
	}
	WaitClean(t)
	if msg := deadDaemons(filepath.Dir(conf)); msg != "" {
		t.Fatal(msg)
	}
}

// Runs without a cluster: an OSD log that gains the failsafe-full line is
// reported once, naming the OSD and the line, and later tests of that
// cluster fail at once; lines written before are not reported again.
func TestWatcherReportsAFalselyFullOSD(t *testing.T) {
	dir := realDir(t.TempDir())
	write(t, filepath.Join(dir, "ceph.conf"), "[global]\n")
	log := filepath.Join(dir, "log", "osd.0.log")
	write(t, log, "2026-12-02T17:19:00 osd.0 up and serving\n")
	reports := make(chan report, 10)
	w := newWatcher(dir, reports)
	w.running[t] = time.Now()
	w.poll(time.Now())
	select {
	case r := <-reports:
		t.Fatalf("a healthy OSD log was reported: %s", r.msg)
	default:
	}

	const engaged = "2026-12-02T17:20:08 osd.0 0 log_channel(cluster) log [ERR] : full status failsafe engaged, dropping updates, now -2147483648% full"
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, engaged)
	// A line still being written is not read yet.
	fmt.Fprint(f, "2026-12-02T17:20:09 osd.0 full status failsafe eng")
	f.Close()
	w.poll(time.Now())
	select {
	case r := <-reports:
		if !strings.Contains(r.msg, "osd.0") || !strings.Contains(r.msg, engaged) || !strings.Contains(r.msg, "ceph osd df") {
			t.Fatalf("the report does not name the OSD, its log line and ceph osd df: %s", r.msg)
		}
		if len(r.tests) != 1 || r.tests[0] != t {
			t.Fatalf("the report names tests %v, want this one", r.tests)
		}
	default:
		t.Fatal("the failsafe line was not reported")
	}
	w.poll(time.Now())
	select {
	case r := <-reports:
		t.Fatalf("the same line was reported twice: %s", r.msg)
	default:
	}
	if w.full[dir] == "" {
		t.Fatal("the cluster is not remembered as refusing writes")
	}
}
