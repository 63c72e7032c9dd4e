package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// An OSD killed with SIGKILL in the middle of a copy, then recovery: the
// copy completes (or, failed, resumes) byte-exact, and after the killed
// OSD has come back and been refilled from its peers (a killed memstore
// OSD restarts empty), the rados CLI or ceph-fuse reads the copy whole. A
// raw object set, a striped object and a CephFS file, on a slow client.
//
// The test runs on a cluster of its own with pools of size 2, min_size 1
// (test.StartCluster): on the shared cluster the kill would lose the
// size-1 pools' PGs the OSD held.
//
// The kill must land inside the copy: it is sent only once the copy has
// made progress and is not done, the copy must still be running once the
// OSD map has the OSD down, and the progress then and at the end is
// logged. An attempt whose copy ended too soon is repeated with slower
// OSD replies; the test fails if no attempt had the kill land.
func TestE2EOSDKill(t *testing.T) {
	c := test.StartCluster(t, true)
	if c == nil {
		return
	}
	fuse := c.FuseMount(t)
	const size = 24*oneMiB + 12345

	t.Run("rados", func(t *testing.T) {
		src := test.UniqueName(t)
		a := test.OpenPool(t, c.Conf, "radoscp-a")
		data := bytes.Join(writeObjects(t, a, src, size/oneMiB+1, oneMiB), nil)[:size]
		b := test.OpenPool(t, c.Conf, "radoscp-b")
		n := size/oneMiB + 1
		osdKilledCopy(t, c, func(dst string) killedCopy {
			cleanupObjects(t, b, dst, n)
			args := []string{"cp", "-c", c.Conf, "--window", "2", "--object-size", "1M", "--length", strconv.Itoa(size), "--no-progress",
				"rados:radoscp-a/" + src, "rados:radoscp-b/" + dst}
			return killedCopy{
				args:  args,
				rerun: args, // a raw copy is copied again whole
				total: uint64(n),
				progress: func() uint64 { // destination objects written
					var k uint64
					for i := range n {
						if _, err := b.Stat(objName(dst, i)); err == nil {
							k++
						}
					}
					return k
				},
				check: func() {
					var got []byte
					for i := range n {
						got = append(got, radosGet(t, c.Conf, "radoscp-b", "", objName(dst, i), false)...)
					}
					test.Equal(t, "rados get of "+dst, got, data)
				},
			}
		})
	})

	t.Run("striper", func(t *testing.T) {
		src, data := makeStriperSource(t, c.Conf, "radoscp-a", size)
		osdKilledCopy(t, c, func(dst string) killedCopy {
			t.Cleanup(func() { removeStriper(t, c.Conf, "radoscp-b", dst) })
			args := []string{"cp", "-c", c.Conf, "--window", "2", "--object-size", "1M", "--no-progress",
				"striper:radoscp-a/" + src, "striper:radoscp-b/" + dst}
			return killedCopy{
				args:     args,
				rerun:    append([]string{"cp", "--resume"}, args[1:]...),
				total:    size,
				progress: func() uint64 { return striperSize(t, c.Conf, "radoscp-b", dst) },
				check: func() {
					test.Equal(t, "rados --striper get of "+dst, radosGet(t, c.Conf, "radoscp-b", "", dst, true), data)
					checkNoObjectsPastEOF(t, c.Conf, "radoscp-b", dst, size)
				},
			}
		})
	})

	t.Run("cephfs", func(t *testing.T) {
		dir := test.UniqueName(t)
		local := filepath.Join(fuse, dir)
		if err := os.Mkdir(local, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(local) })
		data := test.RandomData(18, size)
		if err := os.WriteFile(filepath.Join(local, "src"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		pool := test.OpenPool(t, c.Conf, "cephfs_data")
		const objects = size/(4*oneMiB) + 1 // the default layout's 4 MiB objects
		osdKilledCopy(t, c, func(dst string) killedCopy {
			args := []string{"cp", "-c", c.Conf, "--window", "2", "--no-progress",
				"cephfs:/" + dir + "/src", "cephfs:/" + dir + "/" + dst}
			var ino uint64 // the staging file's, once seen
			return killedCopy{
				args:  args,
				rerun: append([]string{"cp", "--resume"}, args[1:]...),
				total: objects,
				progress: func() uint64 { // the copy's objects written
					if ino == 0 {
						st, err := os.Stat(filepath.Join(local, ".radoscp."+dst))
						if err != nil {
							return 0
						}
						ino = st.Sys().(*syscall.Stat_t).Ino
					}
					var k uint64
					for i := range objects {
						if _, err := pool.Stat(fmt.Sprintf("%x.%08x", ino, i)); err == nil {
							k++
						}
					}
					return k
				},
				check: func() {
					test.Run(t, "cmp", filepath.Join(local, "src"), filepath.Join(local, dst))
					if out := test.Run(t, "rsync", "-a", "-n", "-i", "--checksum", filepath.Join(local, "src"), filepath.Join(local, dst)); strings.TrimSpace(out) != "" {
						t.Errorf("rsync finds differences (metadata) between src and %s:\n%s", dst, out)
					}
				},
			}
		})
	})
}

// killedCopy is one copy for osdKilledCopy: its command line, the one
// that finishes it after a failure, how far it is (in units of total),
// and the check of the finished copy through a reader that is not
// radoscp.
type killedCopy struct {
	args, rerun []string
	total       uint64
	progress    func() uint64
	check       func()
}

// osdKilledCopy runs the copy setup makes for a new destination name,
// kills osd.1 with SIGKILL while it runs, starts it again, and checks the
// outcome (see TestE2EOSDKill).
func osdKilledCopy(t *testing.T, c *test.Cluster, setup func(dst string) killedCopy) {
	for attempt, delay := range []float64{0.2, 0.5, 1.0} {
		k := setup(test.UniqueName(t))
		run := startCmd(t, delayEnv(delay), k.args...)
		var before uint64
		for run.running() {
			if before = k.progress(); before > 0 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		landed := before > 0 && before < k.total && run.running()
		var down, restarted uint64
		if landed {
			c.Kill(t, "osd.1")
			deadline := time.Now().Add(time.Minute)
			for c.OSDUp(t, 1) {
				if time.Now().After(deadline) {
					t.Fatal("osd.1 killed a minute ago and still up in the OSD map")
				}
				time.Sleep(200 * time.Millisecond)
			}
			down = k.progress()
			landed = run.running()
			c.Start(t, "osd.1")
			restarted = k.progress()
		}
		r := run.wait(t, hangGuard)
		end := k.progress()
		t.Logf("attempt %d (replies delayed up to %gs): progress %d of %d when osd.1 was killed, %d when the OSD map had it down, %d when it was started again; exit %d with %d; kill inside the copy: %v",
			attempt, delay, before, k.total, down, restarted, r.code, end, landed)
		switch r.code {
		case 0:
		case 1, 3:
			t.Logf("the copy failed (%s); running it again", strings.TrimSpace(r.stderr))
			if r2 := runCmd(t, nil, k.rerun...); r2.code != 0 {
				t.Fatalf("rerun: exit %d: %s", r2.code, r2.stderr)
			}
		default:
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
		if end := k.progress(); end != k.total {
			t.Fatalf("finished copy at %d of %d", end, k.total)
		}
		// osd.1 came back empty: wait until its peers have refilled it,
		// then read the copy.
		c.WaitClean(t)
		k.check()
		if landed {
			return
		}
	}
	t.Fatal("in no attempt did the kill land inside the copy: the copies ended too soon")
}
