package test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The guards below turn a cluster that stopped answering into a failure
// within a minute or two instead of a test that waits until go test's own
// timeout (80 minutes for a package): a Ceph daemon that died (an OSD of
// a size-1 pool takes its PGs with it, and every I/O to them then waits
// for ever) fails the tests running at that moment, naming the daemon
// with the end of its log, and fails every later test at once; and a
// test that outlives its limit panics with every goroutine's stack.
// librados calls are bounded as well, by the cluster conf's op timeouts
// (cluster.sh); libcephfs and ceph-fuse have none, which is what the
// per-test limit is for.

const (
	// EnvTestLimit overrides testLimit (a Go duration, e.g. "30m").
	EnvTestLimit = "RADOSCP_TEST_LIMIT"
	// testLimit bounds one real-cluster test, far above the longest
	// one (a few minutes on 2 cores) and far below go test's timeout.
	testLimit = 20 * time.Minute
	// deathGrace is how long tests running when a daemon died get to
	// end by themselves (an op timeout, an error) before the test binary
	// panics.
	deathGrace = time.Minute
	// pollEvery is how often daemons' pid files are looked at.
	pollEvery = time.Second
)

// guard is the process's one set of watched clusters and running tests.
var guard = &watcher{
	dirs:    map[string]bool{},
	running: map[testing.TB]time.Time{},
	dead:    map[string]int{},
	report:  failRunning,
}

// watcher notices daemons of its clusters that exited without cluster.sh
// stopping them, and tests that run past their limit.
type watcher struct {
	once    sync.Once
	mu      sync.Mutex
	dirs    map[string]bool          // cluster directories watched
	running map[testing.TB]time.Time // tests that use a cluster, by start
	dead    map[string]int           // "DIR NAME START" -> polls that found it dead
	logs    logScan                  // how far the OSDs' logs were read (falsefull.go)
	full    map[string]string        // DIR -> why its OSDs refuse every write
	limit   time.Duration
	// report is called, without mu held, with what a poll found.
	report func(w *watcher, msg string, tests []testing.TB)
}

// watchTest registers t as using the cluster whose conf is conf, starts the
// watcher if it is not running, and fails t at once when a daemon of that
// cluster is already dead.
func watchTest(t testing.TB, conf string) {
	t.Helper()
	guard.once.Do(guard.start)
	dir := realDir(filepath.Dir(conf))
	// A conf derived from the cluster's (test.SlowConf) is not in a
	// cluster's directory: the test is watched, the directory not.
	_, err := os.Stat(filepath.Join(dir, ".radoscp-cluster"))
	cluster := err == nil
	guard.mu.Lock()
	if cluster {
		guard.dirs[dir] = true
	}
	_, known := guard.running[t]
	if !known {
		guard.running[t] = time.Now()
	}
	full := guard.full[dir]
	guard.mu.Unlock()
	if !known {
		t.Cleanup(func() {
			guard.mu.Lock()
			delete(guard.running, t)
			guard.mu.Unlock()
		})
	}
	if !cluster {
		return
	}
	if full != "" {
		t.Fatal(full)
	}
	if msg := deadDaemons(dir); msg != "" {
		t.Fatal(msg)
	}
}

// watchCluster adds a cluster of a test's own to the watched ones until
// unwatchCluster, which is called before it is stopped.
func watchCluster(dir string) {
	guard.mu.Lock()
	guard.dirs[realDir(dir)] = true
	guard.mu.Unlock()
}

func unwatchCluster(dir string) {
	guard.mu.Lock()
	delete(guard.dirs, realDir(dir))
	guard.mu.Unlock()
}

// realDir is dir as cluster.sh names it in its daemons' command lines.
func realDir(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return dir
}

func (w *watcher) start() {
	w.limit = testLimit
	if d, err := time.ParseDuration(os.Getenv(EnvTestLimit)); err == nil && d > 0 {
		w.limit = d
	}
	go func() {
		for range time.Tick(pollEvery) {
			w.poll(time.Now())
		}
	}()
}

// poll reports each newly dead daemon once, and each test past its limit.
func (w *watcher) poll(now time.Time) {
	w.mu.Lock()
	dirs := make([]string, 0, len(w.dirs))
	for d := range w.dirs {
		dirs = append(dirs, d)
	}
	var late []testing.TB
	for t, started := range w.running {
		if w.limit > 0 && now.Sub(started) > w.limit {
			late = append(late, t)
		}
	}
	w.mu.Unlock()
	slices.Sort(dirs)
	for _, dir := range dirs {
		for _, msg := range w.logs.falselyFull(dir) {
			w.mu.Lock()
			if w.full == nil {
				w.full = map[string]string{}
			}
			w.full[dir] = msg
			tests := w.runningTests()
			w.mu.Unlock()
			w.report(w, msg, tests)
		}
		for _, d := range daemons(dir) {
			if d.alive {
				continue
			}
			// A daemon is dead once two polls in a row find no process
			// (an MDS re-executes itself to respawn).
			key := fmt.Sprintf("%s %s %d", dir, d.name, d.since.UnixNano())
			w.mu.Lock()
			w.dead[key]++
			first := w.dead[key] == 2
			tests := w.runningTests()
			w.mu.Unlock()
			if first {
				w.report(w, d.report(dir), tests)
			}
		}
	}
	if len(late) > 0 {
		w.report(w, fmt.Sprintf("test %s has run for more than %s (%s): a cluster operation that never ends?\n%s",
			names(late), w.limit, EnvTestLimit, clusterState(dirs)), nil)
	}
}

func (w *watcher) runningTests() []testing.TB {
	tests := make([]testing.TB, 0, len(w.running))
	for t := range w.running {
		tests = append(tests, t)
	}
	return tests
}

// failRunning is the watcher's report: a dead daemon fails the tests
// running now, and if they have not ended after deathGrace (they wait on
// a PG the daemon held), the binary panics, naming them; a test past its
// limit (tests is nil) panics at once. Errors go to standard error too:
// a test's own output is printed only once it ends.
func failRunning(w *watcher, msg string, tests []testing.TB) {
	fmt.Fprintf(os.Stderr, "\n=== test cluster: %s\n", msg)
	if tests == nil {
		debug.SetTraceback("all")
		panic(msg)
	}
	w.mu.Lock()
	for _, t := range tests {
		if _, ok := w.running[t]; ok {
			t.Errorf("%s", msg)
		}
	}
	w.mu.Unlock()
	go func() {
		time.Sleep(deathGrace)
		w.mu.Lock()
		var stuck []testing.TB
		for _, t := range tests {
			if _, ok := w.running[t]; ok {
				stuck = append(stuck, t)
			}
		}
		w.mu.Unlock()
		if len(stuck) > 0 {
			debug.SetTraceback("all")
			panic(fmt.Sprintf("%s\ntests still running %s after it: %s", msg, deathGrace, names(stuck)))
		}
	}()
}

func names(tests []testing.TB) string {
	s := make([]string, len(tests))
	for i, t := range tests {
		s[i] = t.Name()
	}
	slices.Sort(s)
	return strings.Join(s, ", ")
}

// deadDaemons returns the reports of the daemons of dir that are dead
// now, or "". A daemon being started again may have no process yet for
// a moment: it is looked at once more a poll later.
func deadDaemons(dir string) string {
	var msgs []string
	for _, d := range daemons(dir) {
		if !d.alive {
			msgs = append(msgs, d.name)
		}
	}
	if len(msgs) == 0 {
		return ""
	}
	time.Sleep(pollEvery)
	msgs = msgs[:0]
	for _, d := range daemons(dir) {
		if !d.alive {
			msgs = append(msgs, d.report(dir))
		}
	}
	return strings.Join(msgs, "\n")
}

// daemon is one daemon that cluster.sh started and has not stopped: its
// mark run/NAME.want lasts from its start until stop-daemon, and a
// crashed daemon removes its pid file, so the mark is what says it
// should be running.
type daemon struct {
	name  string    // osd.1
	since time.Time // the mark's time: one start of the daemon
	alive bool
}

// daemons lists the daemons of the cluster in dir that should be running,
// and whether a process of each is.
func daemons(dir string) []daemon {
	marks, _ := filepath.Glob(filepath.Join(dir, "run", "*.want"))
	if len(marks) == 0 {
		return nil
	}
	live := processes(filepath.Join(dir, "ceph.conf"))
	var ds []daemon
	for _, m := range marks {
		fi, err := os.Stat(m)
		if err != nil {
			continue // stopped since the glob
		}
		name := strings.TrimSuffix(filepath.Base(m), ".want")
		ds = append(ds, daemon{name: name, since: fi.ModTime(), alive: live[name]})
	}
	return ds
}

// processes returns the names of the daemons running with conf: a
// process whose command line is "ceph-osd ... -c CONF ... -i 1" is osd.1.
// A zombie's command line is empty.
func processes(conf string) map[string]bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	live := map[string]bool{}
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte(conf)) {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		kind, ok := strings.CutPrefix(filepath.Base(args[0]), "ceph-")
		if !ok || !slices.Contains(args, conf) {
			continue
		}
		if i := slices.Index(args, "-i"); i >= 0 && i+1 < len(args) {
			live[kind+"."+args[i+1]] = true
		}
	}
	return live
}

// report says which daemon died, with the part of its log that says why.
func (d daemon) report(dir string) string {
	log := filepath.Join(dir, "log", d.name+".log")
	return fmt.Sprintf("ceph daemon %s of the test cluster %s (started %s) exited without being stopped; %s:\n%s",
		d.name, dir, d.since.Format(time.TimeOnly), log, logTail(log))
}

// logTail returns the lines of a daemon's log that explain its end: from
// the last crash report (a caught signal or a failed assertion) on, as
// Ceph follows it with thousands of lines of recent events, or else the
// last lines.
func logTail(path string) string {
	const keep = 40
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	var lines []string
	crash := -1
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "Caught signal") || strings.Contains(line, "FAILED ceph_assert") {
			crash = len(lines)
		}
		lines = append(lines, line)
	}
	start := max(0, len(lines)-keep)
	if crash >= 0 {
		start = crash
	}
	end := min(len(lines), start+keep)
	return strings.Join(lines[start:end], "\n")
}

// clusterState is what ceph says of the watched clusters, for a test that
// ran past its limit.
func clusterState(dirs []string) string {
	var b strings.Builder
	for _, dir := range dirs {
		out, err := ceph(filepath.Join(dir, "ceph.conf"), "health", "detail")
		if err != nil {
			out += err.Error()
		}
		fmt.Fprintf(&b, "ceph health detail of %s: %s\n", dir, out)
	}
	return b.String()
}
