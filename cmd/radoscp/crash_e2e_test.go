package main

import (
	"math/rand/v2"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// Crash trials: radoscp is killed (SIGKILL, no chance to clean up) at a
// random moment of a copy into a new striped object. After each kill the
// destination's published bytes must be the source's; then the same copy
// with --resume must finish, leaving the whole source and no object (or
// byte of an object) past the EOF.
//
// RADOSCP_CRASH_TRIALS sets the number of trials (default 8; make crash
// runs many), RADOSCP_CRASH_SEED the random seed (default: the clock; the
// seed is logged so a failure can be replayed).
//
// The test proves its kills landed mid-copy: a kill counts as one when the
// process died of it with part of the copy written (data objects past
// object 0 exist) and not all of it published. If no random kill did, up
// to three more trials kill a copy at window 1 (the slowest, so its first
// checkpoint comes well before its end) just after its first checkpoint,
// and one of those kills must land mid-copy with part of the copy
// published (a first checkpoint seen through the rados CLI can still be
// the final one on a loaded machine).
func TestE2ECrash(t *testing.T) {
	conf := test.Conf(t)
	trials := envInt(t, "RADOSCP_CRASH_TRIALS", 8)
	seed := uint64(envInt(t, "RADOSCP_CRASH_SEED", int(time.Now().UnixNano()&0x7fffffff)))
	t.Logf("%d trials, RADOSCP_CRASH_SEED=%d", trials, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	src, data := makeStriperSource(t, conf, "radoscp-a", 24*oneMiB+12345)
	var killed, midCopy, finished, partial int
	for i := 0; i < trials || midCopy == 0; i++ {
		targeted := i >= trials // the extra trials: kill after the first checkpoint
		if i >= trials+3 {
			t.Fatalf("none of 3 kills after the first checkpoint landed mid-copy")
		}
		dst := test.UniqueName(t)
		// Copies last two to five seconds, the first one to two of them
		// pinning the source's versions (24 stats, window at a time), so
		// kills land before any data is written, before the first
		// checkpoint (a second into the data), between checkpoints and
		// after the copy ended.
		window := 1 + rng.IntN(4)
		after := time.Duration(rng.IntN(5000)) * time.Millisecond
		if targeted {
			window = 1
		}
		args := []string{"cp", "-c", conf, "--window", strconv.Itoa(window), "--object-size", "1M", "--no-progress",
			"striper:radoscp-a/" + src, "striper:radoscp-b/" + dst}
		run := startCmd(t, delayEnv(0.2), args...)
		if targeted {
			waitFor(t, run, hangGuard, "a first checkpoint", func() bool { return striperSize(t, conf, "radoscp-b", dst) > 0 })
			after = 0
		} else {
			time.Sleep(after)
		}
		run.cmd.Process.Signal(syscall.SIGKILL)
		r := run.wait(t, hangGuard)
		// Object 0 exists from the moment the copy locks it; any other
		// object is data the copy wrote.
		wrote := len(striperObjects(t, conf, "radoscp-b", dst)) > 1
		size := checkPublishedPrefix(t, conf, "radoscp-b", dst, data)
		if r.code == -int(syscall.SIGKILL) {
			killed++
			if wrote && size < uint64(len(data)) {
				midCopy++
			}
		} else {
			finished++
		}
		if size > 0 && size < uint64(len(data)) {
			partial++
		}
		if targeted && (r.code != -int(syscall.SIGKILL) || size == 0 || size == uint64(len(data))) {
			t.Logf("trial %d: killed after the first checkpoint: exit %d, %d of %d bytes published; not mid-copy, trying again",
				i, r.code, size, len(data))
		}
		t.Logf("trial %d: window %d, killed after %s (after the first checkpoint: %v): exit %d, objects written: %v, %d of %d bytes published",
			i, window, after, targeted, r.code, wrote, size, len(data))

		r = runCmd(t, nil, append(args, "--resume")...)
		if r.code != 0 {
			t.Fatalf("trial %d: resume: exit %d: %s", i, r.code, r.stderr)
		}
		if size := checkPublishedPrefix(t, conf, "radoscp-b", dst, data); size != uint64(len(data)) {
			t.Fatalf("trial %d: resumed copy published %d of %d bytes", i, size, len(data))
		}
		checkNoObjectsPastEOF(t, conf, "radoscp-b", dst, uint64(len(data)))
		removeStriper(t, conf, "radoscp-b", dst)
	}
	t.Logf("%d trials killed (%d mid-copy, %d with part of the copy published), %d finished before the kill", killed, midCopy, partial, finished)
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("$%s=%q: expected a whole number", name, v)
	}
	return n
}
