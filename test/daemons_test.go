package test

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// After a failover the MDS that stood by holds rank 0 and the old one
// stands by. EvictClient evicts a client there, where telling every MDS
// (mds.*) fails with ENOSYS, the standby's answer, as a quota test did
// once in CI after a failover test. StartStandbyMDS's cleanup leaves
// mds.a active and no standby; a daemon just started is never taken for
// stopped (its pid file is there when StartDaemon returns).
func TestEvictClientAfterFailover(t *testing.T) {
	conf := FS(t)
	if conf == "" {
		return
	}
	t.Run("failover", func(t *testing.T) {
		StartStandbyMDS(t)
		StopDaemon(t, "mds.a")
		waitMDS(t, "mds.b active", func(stat string) bool { return strings.Contains(stat, "{0=b=up:active}") })
		StartDaemon(t, "mds.a")
		if stopped(t, "mds.a") {
			t.Fatal("mds.a was started, yet its pid file says it is stopped: a cleanup would leave it running")
		}
		waitMDS(t, "standby mds.a", func(stat string) bool { return strings.Contains(stat, "up:standby") })

		pid := fuseClient(t, conf)
		EvictClient(t, pid)
		if holdsSession(t, pid) {
			t.Fatalf("after EvictClient rank 0 still has a session of pid %d", pid)
		}
		_, err := ceph(conf, "tell", "mds.*", "client", "evict", "client_metadata.pid="+strconv.Itoa(pid))
		if err == nil || !strings.Contains(err.Error(), "ENOSYS") {
			t.Fatalf("telling every MDS with mds.a standing by: %v, want ENOSYS (no standby, so no proof)", err)
		}
	})
	if stat := Ceph(t, "mds", "stat"); !strings.Contains(stat, "{0=a=up:active}") || strings.Contains(stat, "standby") {
		t.Fatalf("after StartStandbyMDS's cleanup: %s, want mds.a active alone", stat)
	}
}

// fuseClient runs ceph-fuse in the foreground, as a process of its own,
// until t ends, and returns its pid once rank 0 holds its session.
func fuseClient(t *testing.T, conf string) int {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("ceph-fuse", "-f", "-c", conf, "--pid-file=", dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Lazily: an evicted client's mount answers nothing.
		if exec.Command("fusermount3", "-u", "-z", dir).Run() != nil {
			_ = exec.Command("umount", "-l", dir).Run()
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	for deadline := time.Now().Add(cephTimeout); !holdsSession(t, cmd.Process.Pid); time.Sleep(250 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("ceph-fuse (pid %d) has no session at rank 0 after %s", cmd.Process.Pid, cephTimeout)
		}
	}
	return cmd.Process.Pid
}

// holdsSession says whether rank 0 has a session of process pid.
func holdsSession(t *testing.T, pid int) bool {
	t.Helper()
	var sessions []struct {
		Meta struct {
			Pid string `json:"pid"`
		} `json:"client_metadata"`
	}
	if err := json.Unmarshal([]byte(Ceph(t, "tell", "mds.0", "session", "ls")), &sessions); err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		if s.Meta.Pid == strconv.Itoa(pid) {
			return true
		}
	}
	return false
}
