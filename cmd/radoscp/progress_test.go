package main

import (
	"strings"
	"testing"
	"time"
)

// The status line fits the terminal at every width, so it never wraps.
func TestProgressLineFitsWidth(t *testing.T) {
	p := &progress{}
	p.bytes.Store(123 << 30)
	p.objects.Store(123456)
	for _, w := range []int{60, 80, 132} {
		l := progressLine(p, 1<<40, &rateMeter{}, w)
		if len(l) > w-1 {
			t.Errorf("width %d: %d columns: %q", w, len(l), l)
		}
		if w >= 80 && !strings.HasPrefix(l, "[") {
			t.Errorf("width %d: no bar: %q", w, l)
		}
	}
}

// The rate is over the last seconds: a slow start does not hold the ETA
// back once the copy is fast.
func TestRateMeterFollowsCurrentRate(t *testing.T) {
	r := &rateMeter{}
	t0 := time.Unix(0, 0)
	var done uint64
	r.rate(t0, 0)
	for i := 1; i <= 40; i++ { // 10 s at 1 MiB/s, then 10 s at 100 MiB/s
		per := uint64(1 << 20)
		if i > 20 {
			per = 100 << 20
		}
		done += per / 4
		r.rate(t0.Add(time.Duration(i)*250*time.Millisecond), done)
	}
	if got := r.rate(t0.Add(10*time.Second+time.Millisecond), done); got < 90<<20 {
		t.Fatalf("rate %.1f MiB/s, want about 100", got/(1<<20))
	}
}
