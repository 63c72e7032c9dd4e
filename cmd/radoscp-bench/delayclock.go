package main

/*
#include <time.h>

// coarse_clock_steps reads CLOCK_MONOTONIC_COARSE reads times in a row,
// through the C library (so through a preloaded shim), and counts the
// distinct values: one or two for a clock that ticks every few
// milliseconds, nearly reads for a fine one.
static int coarse_clock_steps(int reads)
{
	struct timespec ts;
	long long last = -1;
	int steps = 0;
	for (int i = 0; i < reads; i++) {
		clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
		long long ns = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
		if (ns != last) {
			steps++;
			last = ns;
		}
	}
	return steps;
}
*/
import "C"

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Delay clocks (--delay-clock): how the contenders' Ceph clients time an
// injected delay.
const (
	// fineDelayClock preloads clockshim/fineclock.c into every contender,
	// so the messenger's coarse clock reads the fine one and its waits of
	// less than a millisecond sleep: each delayed reply waits the delay
	// drawn, as on a network, at about a network's CPU cost.
	fineDelayClock = "fine"
	// coarseDelayClock leaves Ceph's coarse clock as it is.
	coarseDelayClock = "coarse"
)

//go:embed clockshim/fineclock.c
var fineClockSource []byte

// parseDelayClock checks a --delay-clock value.
func parseDelayClock(s string) error {
	if s != fineDelayClock && s != coarseDelayClock {
		return fmt.Errorf("--delay-clock %q: expected %q (a fine clock for the injected delay) or %q (Ceph's coarse clock)", s, fineDelayClock, coarseDelayClock)
	}
	return nil
}

// preloadFineClock builds the clock shim with the C compiler ($CC, else
// cc) in a temporary directory and adds it to LD_PRELOAD, which every
// contender's process inherits. The returned function restores
// LD_PRELOAD and removes the directory.
func preloadFineClock() (func(), error) {
	dir, err := os.MkdirTemp("", "radoscp-bench-clock")
	if err != nil {
		return nil, err
	}
	src, so := filepath.Join(dir, "fineclock.c"), filepath.Join(dir, "fineclock.so")
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	err = os.WriteFile(src, fineClockSource, 0o600)
	if err == nil {
		var out []byte
		if out, err = exec.Command(cc, "-O2", "-shared", "-fPIC", "-o", so, src, "-ldl").CombinedOutput(); err != nil {
			err = fmt.Errorf("%s: %w: %s", cc, err, strings.TrimSpace(string(out)))
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("build the clock shim for --delay-clock fine (--delay-clock coarse needs none): %w", err)
	}
	old, had := os.LookupEnv("LD_PRELOAD")
	preload := so
	if old != "" {
		preload += " " + old
	}
	os.Setenv("LD_PRELOAD", preload)
	return func() {
		if had {
			os.Setenv("LD_PRELOAD", old)
		} else {
			os.Unsetenv("LD_PRELOAD")
		}
		os.RemoveAll(dir)
	}, nil
}

// fineCoarseClock reports whether this process's coarse monotonic clock,
// read through the C library as Ceph reads it, is a fine one: the clock
// shim is preloaded.
func fineCoarseClock() bool {
	const reads = 1000
	return C.coarse_clock_steps(reads) > reads/2
}
