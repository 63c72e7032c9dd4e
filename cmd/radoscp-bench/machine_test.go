package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestDelayNote(t *testing.T) {
	for _, c := range []struct {
		delay, tick time.Duration
		clock       string
		want        []string // "" for no note
	}{
		{0, 4 * time.Millisecond, coarseDelayClock, nil},
		{time.Millisecond, 0, coarseDelayClock, nil},
		{time.Millisecond, 4 * time.Millisecond, coarseDelayClock, []string{"ticks every 4ms", "delayed by up to 4ms, not 1ms", "poll without sleeping"}},
		{20 * time.Millisecond, 4 * time.Millisecond, coarseDelayClock, []string{"ticks every 4ms", "(at most 20ms)"}},
		{time.Millisecond, 4 * time.Millisecond, fineDelayClock, []string{"waited the delay drawn, up to 1ms", "ticks every 4ms", "--delay-clock fine", "sleep where the messenger would poll"}},
	} {
		got := delayNote(c.delay, c.tick, c.clock)
		if len(c.want) == 0 {
			if got != "" {
				t.Errorf("delayNote(%v, %v) = %q, want none", c.delay, c.tick, got)
			}
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("delayNote(%v, %v) = %q, want it to say %q", c.delay, c.tick, got, w)
			}
		}
		if (c.delay >= c.tick || c.clock == fineDelayClock) && strings.Contains(got, ", not ") {
			t.Errorf("delayNote(%v, %v) = %q: a delay of a tick or more is not lengthened to one", c.delay, c.tick, got)
		}
	}
}

// The machine's description carries the coarse clock's resolution, which
// Linux always reports (one jiffy: 1 to 10 ms).
func TestDescribeMachineReadsCoarseClock(t *testing.T) {
	if m := describeMachine(); m.CoarseClockNs <= 0 {
		t.Fatalf("coarse clock resolution = %d ns, want > 0", m.CoarseClockNs)
	}
}

func TestParseDelayClock(t *testing.T) {
	for _, ok := range []string{"fine", "coarse"} {
		if err := parseDelayClock(ok); err != nil {
			t.Errorf("parseDelayClock(%q) = %v", ok, err)
		}
	}
	if err := parseDelayClock("precise"); err == nil || !strings.Contains(err.Error(), `--delay-clock "precise"`) {
		t.Errorf("parseDelayClock(precise) = %v, want an error naming the value", err)
	}
}

// The clock shim, built as a run builds it, makes the coarse clock fine
// in a process that preloads it, and only there: this test's own process
// does not, so the child it starts (itself, re-run) is the one to ask.
func TestFineClockShimLoads(t *testing.T) {
	if os.Getenv("RADOSCP_BENCH_CLOCK_CHILD") != "" {
		fmt.Print(fineCoarseClock())
		os.Exit(0)
	}
	if fineCoarseClock() {
		t.Fatal("the coarse clock reads as a fine one without the shim (a kernel tick is 1 ms or more): the check cannot tell the shim loaded")
	}
	restore, err := preloadFineClock()
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFineClockShimLoads$")
	cmd.Env = append(os.Environ(), "RADOSCP_BENCH_CLOCK_CHILD=1")
	out, err := cmd.Output()
	if err != nil || string(out) != "true" {
		t.Fatalf("a child preloading the shim: fine coarse clock %q, %v; want true", out, err)
	}
	restore()
	if os.Getenv("LD_PRELOAD") != "" && strings.Contains(os.Getenv("LD_PRELOAD"), "fineclock") {
		t.Errorf("LD_PRELOAD still names the shim after restore: %q", os.Getenv("LD_PRELOAD"))
	}
}
