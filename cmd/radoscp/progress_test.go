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
		l := progressLine(p, 1<<40, &rateMeter{}, time.Unix(0, 0), w)
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

// The first ETA waits until bytes have moved for etaAfter, and is then
// close to the truth although the copy started slowly: 100 MiB, nothing
// for a second (connecting, the first round trips), 2 MiB/s for a
// second, then 10 MiB/s.
func TestFirstETAIsClose(t *testing.T) {
	p := &progress{}
	r := &rateMeter{}
	t0 := time.Unix(0, 0)
	const total = 100 << 20
	var done float64
	for tick := 1; done < total; tick++ {
		now := t0.Add(time.Duration(tick) * 250 * time.Millisecond)
		switch s := float64(tick) / 4; {
		case s > 2:
			done += 10 << 20 / 4
		case s > 1:
			done += 2 << 20 / 4
		}
		p.bytes.Store(uint64(min(done, total)))
		line := progressLine(p, total, r, now, 132)
		_, eta, _ := strings.Cut(line, "ETA ")
		if eta == "-" {
			continue
		}
		if since := now.Sub(t0.Add(1250 * time.Millisecond)); since < etaAfter {
			t.Fatalf("ETA %s shown %s after the first byte, before %s of measuring: %q", eta, since, etaAfter, line)
		}
		got, err := time.ParseDuration(eta)
		if err != nil {
			t.Fatalf("ETA %q: %v", eta, err)
		}
		truth := time.Duration((total - done) / (10 << 20) * float64(time.Second))
		if d := got - truth; d < -time.Second || d > time.Second {
			t.Fatalf("first ETA %s at %s, the copy ends in %s: %q", got, now.Sub(t0), truth, line)
		}
		t.Logf("first ETA %s at %s (truth %s): %q", got, now.Sub(t0), truth, line)
		return
	}
	t.Fatal("no ETA was ever shown")
}

// A tree copy's line says the total is still being counted (no
// percentage, no ETA) until the count is complete; then it shows the
// percentage of the tree's bytes, done files of all, and an ETA. Files
// passed over (unchanged) count as done, not in the rate.
func TestTreeLineCountsTheTree(t *testing.T) {
	p := &progress{perFile: true}
	r := &rateMeter{}
	t0 := time.Unix(0, 0)
	p.tree.bytes.Store(40 << 20)
	p.tree.files.Store(4)
	line := progressLine(p, 0, r, t0, 100)
	if !strings.Contains(line, "40.0MiB+ 0/4+ files") || !strings.Contains(line, "counting") || strings.Contains(line, "%") {
		t.Fatalf("while counting: %q", line)
	}
	p.tree.bytes.Store(100 << 20)
	p.tree.files.Store(10)
	p.tree.counted.Store(true)
	p.tree.done.Store(3)
	p.tree.passed.Store(20 << 20) // two unchanged files
	for i := 1; i <= 20; i++ {    // 5 s at 6 MiB/s
		p.bytes.Store(uint64(i) * (6 << 20) / 4)
		line = progressLine(p, 0, r, t0.Add(time.Duration(i)*250*time.Millisecond), 100)
	}
	if !strings.Contains(line, " 50.0% 50.0MiB/100.0MiB 3/10 files 6.0MiB/s ETA 8s") || !strings.HasPrefix(line, "[") {
		t.Fatalf("counted: %q, want 50.0%% 50.0MiB/100.0MiB 3/10 files 6.0MiB/s ETA 8s after a bar", line)
	}
}
