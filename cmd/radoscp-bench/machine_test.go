package main

import (
	"strings"
	"testing"
	"time"
)

func TestDelayNote(t *testing.T) {
	for _, c := range []struct {
		delay, tick time.Duration
		want        []string // "" for no note
	}{
		{0, 4 * time.Millisecond, nil},
		{time.Millisecond, 0, nil},
		{time.Millisecond, 4 * time.Millisecond, []string{"ticks every 4ms", "delayed by up to 4ms, not 1ms", "poll without sleeping"}},
		{20 * time.Millisecond, 4 * time.Millisecond, []string{"ticks every 4ms", "(at most 20ms)"}},
	} {
		got := delayNote(c.delay, c.tick)
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
		if c.delay >= c.tick && strings.Contains(got, ", not ") {
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
