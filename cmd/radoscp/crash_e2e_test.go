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
func TestE2ECrash(t *testing.T) {
	conf := test.Conf(t)
	trials := envInt(t, "RADOSCP_CRASH_TRIALS", 8)
	seed := uint64(envInt(t, "RADOSCP_CRASH_SEED", int(time.Now().UnixNano()&0x7fffffff)))
	t.Logf("%d trials, RADOSCP_CRASH_SEED=%d", trials, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	src, data := makeStriperSource(t, conf, "radoscp-a", 24*oneMiB+12345)
	var killed, finished, partial int
	for i := range trials {
		dst := test.UniqueName(t)
		// Copies last one to three seconds, so kills land before the
		// first checkpoint (a second in), between checkpoints and after
		// the copy ended.
		window := 1 + rng.IntN(4)
		after := time.Duration(rng.IntN(3000)) * time.Millisecond
		args := []string{"cp", "-c", conf, "--window", strconv.Itoa(window), "--object-size", "1M", "--no-progress",
			"striper:radoscp-a/" + src, "striper:radoscp-b/" + dst}
		run := startCmd(t, delayEnv(0.2), args...)
		time.Sleep(after)
		run.cmd.Process.Signal(syscall.SIGKILL)
		r := run.wait(t, hangGuard)
		if r.code == -int(syscall.SIGKILL) {
			killed++
		} else {
			finished++
		}
		size := checkPublishedPrefix(t, conf, "radoscp-b", dst, data)
		if size > 0 && size < uint64(len(data)) {
			partial++
		}
		t.Logf("trial %d: window %d, killed after %s: exit %d, %d of %d bytes published", i, window, after, r.code, size, len(data))

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
	t.Logf("%d trials killed mid-copy (%d with part of the copy published), %d finished before the kill", killed, partial, finished)
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
