package main

import (
	"strings"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// Cluster faults during a copy into a striped object: operations that time
// out, an OSD stopped and restarted, a monitor restarted. Each copy must
// end (no hang), and the destination's published bytes must be the
// source's; a copy that completes must be whole.

// hangGuard is how long a faulted copy may take before the test calls it
// hung. It is no performance threshold: each of these copies ends in
// seconds, and only one that never ends exceeds it.
const hangGuard = 3 * time.Minute

func TestE2EOpTimeout(t *testing.T) {
	conf := test.Conf(t)
	src, data := makeStriperSource(t, conf, "radoscp-a", 48*oneMiB)
	dst := test.UniqueName(t)
	t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
	run := startCmd(t, delayEnv(0.3), "cp", "-c", conf, "--window", "1", "--op-timeout", "1s", "--json",
		"--object-size", "1M", "striper:radoscp-a/"+src, "striper:radoscp-b/"+dst)
	time.Sleep(1500 * time.Millisecond)
	// Every OSD operation is now held by the client: stuck OSDs.
	test.Pause(t)
	r := run.wait(t, hangGuard)
	test.Unpause(t)
	if r.code != 1 && r.code != 3 {
		t.Fatalf("exit %d, want 1 or 3 (failed)\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "ETIMEDOUT") {
		t.Errorf("stderr does not name ETIMEDOUT: %s", r.stderr)
	}
	m := parseJSON(t, r)
	if m["errno"] != float64(110) {
		t.Errorf("errno %v, want 110 (ETIMEDOUT): %s", m["errno"], r.stdout)
	}
	size := checkPublishedPrefix(t, conf, "radoscp-b", dst, data)
	if pub, _ := m["published_eof"].(float64); uint64(pub) != size {
		t.Errorf("JSON published_eof %v, rados --striper stat says %d", m["published_eof"], size)
	}
	t.Logf("timed out with %d of %d bytes published, exit %d: %s", size, len(data), r.code, strings.TrimSpace(r.stderr))

	// The same copy, resumed on the healthy cluster, finishes it.
	r = runCmd(t, nil, "cp", "-c", conf, "--resume", "--no-progress", "striper:radoscp-a/"+src, "striper:radoscp-b/"+dst)
	if r.code != 0 {
		t.Fatalf("resume: exit %d: %s", r.code, r.stderr)
	}
	if size := checkPublishedPrefix(t, conf, "radoscp-b", dst, data); size != uint64(len(data)) {
		t.Fatalf("resumed copy published %d of %d bytes", size, len(data))
	}
	checkNoObjectsPastEOF(t, conf, "radoscp-b", dst, uint64(len(data)))
}

// faultedCopy copies a striped object of 32 MiB and some in pool, with OSD
// replies delayed so that it lasts several seconds, and calls fault once
// the copy is under way. The copy must complete or fail cleanly; either way
// the published prefix is checked, and a failed copy is then resumed to
// the end.
//
// The fault must land inside the copy: it starts only after the copy has
// published a checkpoint (so it has copied data, and is not merely
// connecting) and before it has published everything, and the copy must
// still be running when fault returns. An attempt whose copy ended too
// soon proves nothing; it is repeated with slower replies, and the test
// fails if no attempt had the fault land.
func faultedCopy(t *testing.T, pool string, fault func()) {
	conf := test.Conf(t)
	src, data := makeStriperSource(t, conf, pool, 32*oneMiB+12345)
	for attempt, delay := range []float64{0.3, 0.6, 1.2} {
		dst := test.UniqueName(t)
		t.Cleanup(func() { removeStriper(t, conf, pool, dst) })
		run := startCmd(t, delayEnv(delay), "cp", "-c", conf, "--window", "2", "--json", "--object-size", "1M",
			"striper:"+pool+"/"+src, "striper:"+pool+"/"+dst)
		var before uint64
		for run.running() {
			if before = striperSize(t, conf, pool, dst); before > 0 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		landed := before > 0 && before < uint64(len(data)) && run.running()
		if landed {
			fault()
			landed = run.running()
		}
		r := run.wait(t, hangGuard)
		size := checkPublishedPrefix(t, conf, pool, dst, data)
		t.Logf("attempt %d (replies delayed up to %gs): %d bytes published when the fault began; exit %d with %d of %d bytes published; fault inside the copy: %v",
			attempt, delay, before, r.code, size, len(data), landed)
		switch r.code {
		case 0:
			if size != uint64(len(data)) {
				t.Fatalf("exit 0 but %d of %d bytes published", size, len(data))
			}
		case 1, 3:
			r = runCmd(t, nil, "cp", "-c", conf, "--resume", "--no-progress", "striper:"+pool+"/"+src, "striper:"+pool+"/"+dst)
			if r.code != 0 {
				t.Fatalf("resume: exit %d: %s", r.code, r.stderr)
			}
			if size := checkPublishedPrefix(t, conf, pool, dst, data); size != uint64(len(data)) {
				t.Fatalf("resumed copy published %d of %d bytes", size, len(data))
			}
		default:
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
		checkNoObjectsPastEOF(t, conf, pool, dst, uint64(len(data)))
		if landed {
			return
		}
	}
	t.Fatal("in no attempt did the fault land inside the copy: the copies ended too soon")
}

func TestE2EOSDRestart(t *testing.T) {
	// Two replicas, one enough to serve: the pool survives one OSD.
	pool := test.Pool(t, 2)
	faultedCopy(t, pool, func() {
		test.StopDaemon(t, "osd.1")
		time.Sleep(time.Second)
		test.StartDaemon(t, "osd.1")
	})
	test.WaitClean(t)
}

func TestE2EMonRestart(t *testing.T) {
	faultedCopy(t, "radoscp-a", func() {
		test.StopDaemon(t, "mon.a")
		time.Sleep(time.Second)
		test.StartDaemon(t, "mon.a")
	})
}
