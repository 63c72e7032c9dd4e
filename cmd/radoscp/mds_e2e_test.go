package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/test"
)

// The MDS restarted, or failed over to a standby, in the middle of a tree
// copy and of a migrate, on a slow client: every file ends complete or
// absent (a copy puts a file in place only when it is whole; a migrate
// leaves each file in its old pool or whole in the new one), a rerun
// finishes, and nothing is left in staging. Checked through ceph-fuse.
//
// The fault must land inside the run: it begins only once some files are
// done and others not, and the run must still be running when the MDS is
// back; attempts whose run ended too soon are repeated with slower OSD
// replies, and the test fails if none had the fault land.
//
// CI runs a restart during a tree copy and a failover during a migrate;
// RADOSCP_LONG=1 adds the other two.
func TestE2EMDSFaults(t *testing.T) {
	test.FS(t)
	long := os.Getenv("RADOSCP_LONG") != ""
	for _, tc := range []struct {
		name     string
		migrate  bool
		failover bool
		ci       bool
	}{
		{"restart during a tree copy", false, false, true},
		{"restart during a migrate", true, false, false},
		{"failover during a tree copy", false, true, false},
		{"failover during a migrate", true, true, true},
	} {
		if !tc.ci && !long {
			continue
		}
		t.Run(strings.ReplaceAll(tc.name, " ", "-"), func(t *testing.T) {
			delays := []float64{0.3, 0.8, 1.5, 3}
			if tc.failover {
				delays = delays[1:] // a failover takes longer to wait out
			}
			for attempt, delay := range delays {
				landed := false
				// A subtest per attempt, so each one's daemons and files
				// are put back before the next.
				t.Run(fmt.Sprint("attempt", attempt), func(t *testing.T) {
					landed = mdsFaultedRun(t, attempt, delay, tc.migrate, tc.failover)
				})
				if landed || t.Failed() {
					return
				}
			}
			t.Fatal("in no attempt did the MDS fault land inside the run: the runs ended too soon")
		})
	}
}

// mdsFaultedRun is one attempt; it reports whether the fault landed.
func mdsFaultedRun(t *testing.T, attempt int, delay float64, migrate, failover bool) bool {
	e := newSlowEnv(t, delay)
	const files = 8 // enough for the run (some 10 s a file on a slow client) to outlast a failover seen through a loaded machine's ceph CLI
	e.m.MakeDir(e.path("src"), 0o755)
	want := map[string][]byte{}
	for i := range files {
		name := fmt.Sprintf("f%d", i)
		want[name] = test.RandomData(uint64(30+i), 2<<20+i*1000)
	}
	writeSources(t, e, want)
	// The sources' mtimes, which the copies (and the migrated files) keep.
	mtimes := map[string]time.Time{}
	for name := range want {
		st, err := os.Stat(e.local("src/" + name))
		if err != nil {
			t.Fatal(err)
		}
		mtimes[name] = st.ModTime()
	}
	target, pool := "dst", "cephfs_data2"
	args := []string{"cp", "-c", e.slow, "-r", "--window", "1", "--files", "1", "--no-progress", "cephfs:" + e.path("src"), "cephfs:" + e.path("dst")}
	if migrate {
		target = "src"
		args = []string{"migrate", "-c", e.slow, "--pool", pool, "--window", "1", "--files", "1", "--no-progress", "cephfs:" + e.path("src")}
	}
	// done counts the files the run has finished (a tree copy: started),
	// as ceph-fuse sees them,
	// without opening any: the MDS may issue write caps to a client that
	// opens a file read-only, when it is the file's only user, and an MDS
	// restarting soon after would then recover that file from its objects
	// and move its mtime (see fscopy/settle.go), whoever copied it.
	done := func() int {
		n := 0
		for name := range want {
			if migrate {
				if fuseXattrOr(e, "src/"+name, "ceph.file.layout.pool") == pool {
					n++
				}
			} else if _, err := os.Lstat(e.local(".radoscp." + target + "/" + name)); err == nil {
				n++ // in the new target's staging tree (fscopy/freshtree.go)
			}
		}
		return n
	}
	if failover {
		test.StartStandbyMDS(t)
	}
	run := startCmd(t, nil, args...)
	var before int
	for run.running() {
		if before = done(); before > 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	landed := before > 0 && before < files && run.running()
	var took string
	if landed {
		test.WaitMDSActive(t)
		active := test.ActiveMDS(t)
		if active == "" {
			t.Fatalf("no active MDS to stop: %s", test.Ceph(t, "mds", "stat"))
		}
		test.StopDaemon(t, "mds."+active)
		if failover {
			// The fault is over once the standby is active; the old MDS
			// comes back as the new standby.
			test.WaitMDSActive(t)
			took = test.ActiveMDS(t)
			landed = run.running()
			test.StartDaemon(t, "mds."+active)
		} else {
			time.Sleep(time.Second)
			test.StartDaemon(t, "mds."+active)
			test.WaitMDSActive(t)
			landed = run.running()
		}
		if failover && (took == active || took == "") {
			t.Fatalf("failover: mds.%s stopped, active MDS now %q", active, took)
		}
	}
	r := run.wait(t, hangGuard)
	t.Logf("attempt %d (replies delayed up to %gs): %d of %d files done when the MDS went down; active MDS after it: %q; exit %d; fault inside the run: %v",
		attempt, delay, before, files, took, r.code, landed)
	// Complete or absent, before any rerun (a tree copy's target is
	// there whole, or not at all).
	for name, data := range want {
		got, ok := e.read(t, target+"/"+name)
		if migrate && !ok {
			t.Fatalf("migrate lost %s", name)
		}
		if ok && !bytes.Equal(got, data) {
			t.Fatalf("%s/%s is there and not the source (%d of %d bytes)", target, name, len(got), len(data))
		}
	}
	if r.code != 0 {
		rerun := append([]string{}, args...)
		if !migrate {
			rerun = append(rerun[:1], append([]string{"--resume"}, rerun[1:]...)...)
		}
		if r2 := runCmd(t, nil, rerun...); r2.code != 0 {
			t.Fatalf("rerun after exit %d: exit %d\nstdout: %s\nstderr: %s", r.code, r2.code, r2.stdout, r2.stderr)
		}
	}
	for name, data := range want {
		if got, ok := e.read(t, target+"/"+name); !ok || !bytes.Equal(got, data) {
			t.Fatalf("after the run (and rerun), %s/%s differs or is missing", target, name)
		}
		if migrate {
			if p := fuseXattrOr(e, "src/"+name, "ceph.file.layout.pool"); p != pool {
				t.Fatalf("after the migrate, src/%s is in pool %q", name, p)
			}
		}
	}
	for _, n := range e.names(t, target) {
		if strings.HasPrefix(n, ".radoscp.") {
			t.Fatalf("staging file %s left in %s", n, target)
		}
	}
	// Times too: an MDS that recovers a file the run had just closed
	// would take its objects' newest mtime (fscopy/settle.go).
	for name := range want {
		st, err := os.Stat(e.local(target + "/" + name))
		if err != nil {
			t.Fatal(err)
		}
		if !st.ModTime().Equal(mtimes[name]) {
			t.Errorf("%s/%s: mtime %v, the source's %v", target, name, st.ModTime(), mtimes[name])
		}
	}
	if !migrate {
		e.same(t, "src", "dst")
	}
	return landed
}

// fuseXattrOr is fuseXattr, or "" when the xattr cannot be read (a file
// being renamed into place by a migrate).
func fuseXattrOr(e *slowEnv, p, name string) string {
	buf := make([]byte, 256)
	n, err := syscall.Getxattr(e.local(p), name, buf)
	if err != nil {
		return ""
	}
	return string(buf[:n])
}

// writeSources writes want into src through a mount of its own, unmounted
// before the run: a client's writable ranges on the files it wrote are
// dropped, durably, when it unmounts, so the MDS restart cannot recover the
// sources from their objects and move their mtimes (see done above).
func writeSources(t *testing.T, e *slowEnv, want map[string][]byte) {
	t.Helper()
	m, err := gocephfs.CreateMount()
	if err == nil {
		err = m.ReadConfigFile(e.conf)
	}
	if err == nil {
		err = m.Mount()
	}
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range want {
		test.WriteFile(t, m, e.path("src/"+name), data)
	}
	if err := m.Unmount(); err != nil {
		t.Fatal(err)
	}
	m.Release()
}
