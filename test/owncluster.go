package test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Cluster is a cluster of a test's own, started by StartCluster, for
// faults the shared test cluster must not see: a memstore OSD killed with
// SIGKILL comes back empty, and on the shared cluster it would take with
// it every size-1 pool's PGs it held (CephFS metadata among them).
type Cluster struct {
	Dir  string // cluster.sh's directory
	Conf string // its ceph.conf
}

// StartCluster starts a cluster for t alone (cluster.sh start, with a
// CephFS if fs) and turns every replicated pool into one of size 2,
// min_size 1, so that it serves with one OSD gone and refills that OSD
// when it comes back. It needs what the shared test cluster needs (the
// test is skipped, or fails under $RADOSCP_REQUIRE_CLUSTER, without one)
// and is stopped and removed when t ends.
func StartCluster(t testing.TB, fs bool) *Cluster {
	t.Helper()
	if Conf(t) == "" {
		return nil
	}
	// A short path: admin sockets are unix sockets, 107 bytes at most.
	dir, err := os.MkdirTemp("", "radoscp-own-")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"start", dir}
	if fs {
		args = []string{"start", "--fs", dir}
	}
	c := &Cluster{Dir: dir, Conf: filepath.Join(dir, "ceph.conf")}
	t.Cleanup(func() {
		unwatchCluster(dir)
		if out, err := exec.Command(script(), "stop", dir).CombinedOutput(); err != nil {
			t.Errorf("cluster.sh stop %s: %v\n%s", dir, err, out)
		}
	})
	c.script(t, 5*time.Minute, args...)
	watchCluster(dir)
	var pools []struct {
		Name string `json:"pool_name"`
		Type int    `json:"type"` // 1 replicated, 3 erasure
	}
	if err := json.Unmarshal([]byte(c.Ceph(t, "osd", "pool", "ls", "detail", "--format", "json")), &pools); err != nil {
		t.Fatal(err)
	}
	for _, p := range pools {
		if p.Type == 1 {
			c.Ceph(t, "osd", "pool", "set", p.Name, "size", "2")
			c.Ceph(t, "osd", "pool", "set", p.Name, "min_size", "1")
		}
	}
	c.WaitClean(t)
	return c
}

func (c *Cluster) script(t testing.TB, limit time.Duration, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	if out, err := exec.CommandContext(ctx, script(), args...).CombinedOutput(); err != nil {
		t.Fatalf("cluster.sh %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// Ceph runs the ceph CLI against the cluster, like the package's Ceph.
func (c *Cluster) Ceph(t testing.TB, args ...string) string {
	t.Helper()
	out, err := ceph(c.Conf, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Kill kills daemon name (osd.1) with SIGKILL and waits until it has
// exited; a memstore OSD loses every object it held.
func (c *Cluster) Kill(t testing.TB, name string) {
	t.Helper()
	c.script(t, cephTimeout, "stop-daemon", c.Dir, name, "--kill")
}

// Start starts daemon name again.
func (c *Cluster) Start(t testing.TB, name string) {
	t.Helper()
	c.script(t, cephTimeout, "start-daemon", c.Dir, name)
}

// WaitClean waits until every PG is active+clean (every OSD that holds
// one is up and has all its objects), failing t after cephTimeout.
func (c *Cluster) WaitClean(t testing.TB) {
	t.Helper()
	waitClean(t, c.Conf)
}

// OSDUp says whether the OSD map has osd.id up.
func (c *Cluster) OSDUp(t testing.TB, id int) bool {
	t.Helper()
	var m struct {
		OSDs []struct {
			OSD int `json:"osd"`
			Up  int `json:"up"`
		} `json:"osds"`
	}
	if err := json.Unmarshal([]byte(c.Ceph(t, "osd", "dump", "--format", "json")), &m); err != nil {
		t.Fatal(err)
	}
	for _, o := range m.OSDs {
		if o.OSD == id {
			return o.Up == 1
		}
	}
	t.Fatalf("no osd.%d in the OSD map", id)
	return false
}
