package test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// script is cluster.sh, found next to this file, so tests of any package
// can stop and start the daemons of the cluster they use.
func script() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "cluster.sh")
}

// clusterScript runs cluster.sh CMD DIR ARGS... for the test cluster, whose
// directory holds its ceph.conf.
func clusterScript(t testing.TB, cmd string, args ...string) {
	t.Helper()
	conf := Conf(t)
	if conf == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cephTimeout)
	defer cancel()
	full := append([]string{cmd, filepath.Dir(conf)}, args...)
	if out, err := exec.CommandContext(ctx, script(), full...).CombinedOutput(); err != nil {
		t.Fatalf("cluster.sh %s: %v\n%s", strings.Join(full, " "), err, out)
	}
}

// StopDaemon stops one daemon of the test cluster (osd.1, mon.a) and waits
// until it has exited; a stopped OSD saves its objects first, so starting
// it again brings them back. StartDaemon starts it again. When t ends the
// daemon is started if it is still stopped and the cluster is waited for
// until every PG is active+clean, so later tests find it whole.
func StopDaemon(t testing.TB, name string) {
	t.Helper()
	clusterScript(t, "stop-daemon", name)
	t.Cleanup(func() {
		if stopped(t, name) {
			clusterScript(t, "start-daemon", name)
		}
		WaitClean(t)
	})
}

// StartDaemon starts a daemon StopDaemon stopped.
func StartDaemon(t testing.TB, name string) {
	t.Helper()
	clusterScript(t, "start-daemon", name)
}

// stopped says whether daemon name has no live process, by its pid file.
func stopped(t testing.TB, name string) bool {
	check := `f=$1/run/$2.pid; [[ -f $f ]] && kill -0 "$(<"$f")" 2>/dev/null`
	return exec.Command("bash", "-c", check, "-", filepath.Dir(Conf(t)), name).Run() != nil
}

// WaitClean waits until every OSD is up and every PG active+clean, failing
// t after cephTimeout.
func WaitClean(t testing.TB) {
	t.Helper()
	if conf := Conf(t); conf != "" {
		waitClean(t, conf)
	}
}

func waitClean(t testing.TB, conf string) {
	t.Helper()
	deadline := time.Now().Add(cephTimeout)
	for {
		out, err := ceph(conf, "pg", "stat")
		if err == nil && cleanStat(out) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster not active+clean after %s: %s %v", cephTimeout, out, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// cleanStat reads "48 pgs: 48 active+clean; ..." from ceph pg stat.
func cleanStat(s string) bool {
	var total, clean int
	var state string
	if _, err := fmt.Sscanf(s, "%d pgs: %d %s", &total, &clean, &state); err != nil {
		return false
	}
	return total == clean && strings.TrimSuffix(state, ";") == "active+clean"
}

// Pool creates a replicated pool of size replicas (min_size 1), for tests
// that stop an OSD and need the data to survive, and deletes it when t
// ends. It returns the pool's name.
func Pool(t testing.TB, size int) string {
	t.Helper()
	name := UniqueName(t)
	Ceph(t, "osd", "pool", "create", name, "8", "8")
	t.Cleanup(func() { Ceph(t, "osd", "pool", "delete", name, name, "--yes-i-really-really-mean-it") })
	Ceph(t, "osd", "pool", "set", name, "size", fmt.Sprint(size))
	Ceph(t, "osd", "pool", "set", name, "min_size", "1")
	Ceph(t, "osd", "pool", "application", "enable", name, "rados")
	WaitClean(t)
	return name
}

// Pause sets the cluster's pause flags (pauserd, pausewr): OSD operations
// are held by every client until Unpause, as if the OSDs were stuck. It is
// undone when t ends.
func Pause(t testing.TB) {
	t.Helper()
	Ceph(t, "osd", "pause")
	t.Cleanup(func() { Unpause(t) })
}

// Unpause clears the pause flags.
func Unpause(t testing.TB) {
	t.Helper()
	Ceph(t, "osd", "unpause")
}

// WaitMDSActive waits until the file system has an active MDS, failing t
// after cephTimeout: after an MDS restart or failover, replay and client
// reconnection take a while.
func WaitMDSActive(t testing.TB) {
	t.Helper()
	waitMDS(t, "an active MDS", func(stat string) bool { return strings.Contains(stat, "up:active") })
}

func waitMDS(t testing.TB, what string, ok func(stat string) bool) {
	t.Helper()
	conf := Conf(t)
	deadline := time.Now().Add(cephTimeout)
	for {
		out, err := ceph(conf, "mds", "stat")
		if err == nil && ok(out) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s after %s: %s %v", what, cephTimeout, out, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// StartStandbyMDS starts mds.b, a second MDS (cluster.sh start --fs made
// its key), and waits until it stands by for the active one, so stopping
// that one fails the file system over to it. When t ends mds.b is stopped,
// mds.a is started if it is not running, and an active MDS is waited for.
func StartStandbyMDS(t testing.TB) {
	t.Helper()
	clusterScript(t, "start-daemon", "mds.b")
	t.Cleanup(func() {
		if stopped(t, "mds.a") {
			clusterScript(t, "start-daemon", "mds.a")
			waitMDS(t, "standby mds.a", func(stat string) bool { return strings.Contains(stat, "up:standby") })
		}
		if !stopped(t, "mds.b") {
			clusterScript(t, "stop-daemon", "mds.b")
		}
		// mds.a active and no standby in the map: a later test that
		// tells every MDS something (mds.*) would get ENOSYS from a
		// standby.
		waitMDS(t, "mds.a active alone", func(stat string) bool {
			return strings.Contains(stat, "{0=a=up:active}") && !strings.Contains(stat, "standby")
		})
	})
	waitMDS(t, "standby MDS", func(stat string) bool { return strings.Contains(stat, "up:standby") })
}

// ActiveMDS is the name of the active MDS ("a" or "b"), from ceph mds stat
// ("cephfs:1 {0=a=up:active} 1 up:standby").
func ActiveMDS(t testing.TB) string {
	t.Helper()
	out := Ceph(t, "mds", "stat")
	if _, rest, ok := strings.Cut(out, "{0="); ok {
		if name, state, ok := strings.Cut(rest, "="); ok && strings.HasPrefix(state, "up:active") {
			return name
		}
	}
	return ""
}

// EvictClient evicts, as an operator would, the CephFS client of process
// pid (a copier killed mid-copy keeps its session and caps until then) at
// the MDS holding rank 0, whichever daemon that is after a failover: a
// standby answers a client eviction with ENOSYS.
//
// An eviction that fails or does not return within cephTimeout (seen
// once, in the Reef lane) fails t with what the MDS was doing then: its
// operations in flight and its sessions, and the mon's, read through
// their admin sockets, and the cluster's status.
func EvictClient(t testing.TB, pid int) {
	t.Helper()
	conf := Conf(t)
	if conf == "" {
		return
	}
	_, err := ceph(conf, "tell", "mds.0", "client", "evict", "client_metadata.pid="+strconv.Itoa(pid))
	if err == nil {
		return
	}
	report := []string{err.Error()}
	for _, name := range []string{"a", "b"} {
		asok := filepath.Join(filepath.Dir(conf), "run", "mds."+name+".asok")
		for _, cmd := range []string{"dump_ops_in_flight", "session ls"} {
			args := append([]string{"20", "ceph", "--admin-daemon", asok}, strings.Fields(cmd)...)
			out, err := exec.Command("timeout", args...).CombinedOutput()
			report = append(report, fmt.Sprintf("mds.%s %s (%v):\n%s", name, cmd, err, out))
		}
	}
	// The eviction blocklists the client: an OSD map the mon proposes.
	asok := filepath.Join(filepath.Dir(conf), "run", "mon.a.asok")
	out, oerr := exec.Command("timeout", "20", "ceph", "--admin-daemon", asok, "ops").CombinedOutput()
	report = append(report, fmt.Sprintf("mon.a ops (%v):\n%s", oerr, out))
	status, serr := ceph(conf, "status")
	report = append(report, fmt.Sprintf("ceph status (%v):\n%s", serr, status))
	t.Fatal(strings.Join(report, "\n"))
}
