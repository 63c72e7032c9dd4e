package window

import (
	"context"
	"slices"
	"testing"
	"time"
)

func TestNewAIMDClamps(t *testing.T) {
	for _, tc := range []struct{ start, max, width, wantMax int }{
		{0, 0, 1, 1},
		{-5, 8, 1, 8},
		{10, 4, 4, 4},
		{3, 64, 3, 64},
	} {
		a := NewAIMD(tc.start, tc.max)
		if a.Width() != tc.width || a.Max() != tc.wantMax {
			t.Errorf("NewAIMD(%d, %d): width %d max %d, want %d %d", tc.start, tc.max, a.Width(), a.Max(), tc.width, tc.wantMax)
		}
	}
}

// window feeds one round of count operations of latency lat that moved
// bytes in elapsed, each submitted and then observed, and returns the next
// width.
func window(a *AIMD, count int, lat time.Duration, bytes int64, elapsed time.Duration) int {
	for i := range int64(count) {
		a.Submitted()
		// Shares that add up to bytes exactly.
		a.Observe(lat, bytes*(i+1)/int64(count)-bytes*i/int64(count))
	}
	return a.Next(elapsed)
}

// round is window with as many operations as the width.
func round(a *AIMD, lat time.Duration, bytes int64, elapsed time.Duration) int {
	return window(a, a.Width(), lat, bytes, elapsed)
}

// inFlight submits k operations that are not observed yet.
func inFlight(a *AIMD, k int) {
	for range k {
		a.Submitted()
	}
}

func TestAIMDSteps(t *testing.T) {
	a := NewAIMD(4, 6)
	if got := a.Next(time.Second); got != 4 {
		t.Errorf("empty window moved width to %d", got)
	}
	// Throughput rising, latency flat: +1 up to max.
	for i, want := range []int{5, 6, 6} {
		if got := round(a, 10*time.Millisecond, int64(100*(i+1)), time.Second); got != want {
			t.Fatalf("rising window %d: width %d, want %d", i, got, want)
		}
	}
	// Latency flat, throughput fell: hold.
	if got := round(a, 10*time.Millisecond, 100, time.Second); got != 6 {
		t.Errorf("falling throughput: width %d, want 6", got)
	}
	// Latency at 1.5x the best still holds; above it halves.
	if got := round(a, 15*time.Millisecond, 100, time.Second); got != 6 {
		t.Errorf("p50 at 1.5x best: width %d, want 6", got)
	}
	// Above it halves, and the 9 operations in flight at the cut, sent
	// at the old width, are ignored.
	inFlight(a, 9)
	if got := round(a, 16*time.Millisecond, 100, time.Second); got != 3 {
		t.Fatalf("congested: width %d, want 3", got)
	}
	for range 9 {
		if a.Observe(time.Hour, 100) {
			t.Fatal("an operation in flight at the cut counted")
		}
	}
	if got := a.Next(time.Second); got != 3 {
		t.Fatalf("operations in flight at the cut moved width to %d", got)
	}
	if got := round(a, 16*time.Millisecond, 100, time.Second); got != 1 {
		t.Fatalf("still congested: width %d, want 1", got)
	}
	// At width 1 the latency seen becomes the best: increase resumes.
	if got := round(a, 16*time.Millisecond, 100, time.Second); got != 2 {
		t.Errorf("width 1: next width %d, want 2", got)
	}
	// The median, not the mean, decides: one slow outlier is ignored.
	b := NewAIMD(8, 16)
	round(b, 10*time.Millisecond, 0, 0)
	for range 8 {
		b.Observe(10*time.Millisecond, 0)
	}
	b.Observe(time.Second, 0)
	if got := b.Next(0); got != 10 {
		t.Errorf("outlier: width %d, want 10", got)
	}
}

// Latency that climbs is not congestion while the round's rate is at least
// 25% above the best measured at half its width or less; 20% above the
// previous round's is not enough.
func TestAIMDGainAtHalfWidth(t *testing.T) {
	a := NewSlowStartAIMD(4, 64)
	round(a, 10*time.Millisecond, 400, time.Second)
	if got := round(a, 20*time.Millisecond, 500, time.Second); got != 16 {
		t.Fatalf("latency 2x, rate 1.25x the rate at half the width: width %d, want 16", got)
	}
	if got := round(a, 40*time.Millisecond, 600, time.Second); got != 8 {
		t.Fatalf("latency 4x, rate 1.2x the rate at half the width: width %d, want 8", got)
	}
	// Growing by one now; the best rate at widths up to 4 is 400.
	if got := round(a, 10*time.Millisecond, 450, time.Second); got != 9 {
		t.Fatalf("calm round: width %d, want 9", got)
	}
	if got := round(a, 20*time.Millisecond, 500, time.Second); got != 10 {
		t.Fatalf("width 9, rate 1.25x the best at width 4 or less: width %d, want 10", got)
	}
	if got := round(a, 20*time.Millisecond, 490, time.Second); got != 5 {
		t.Fatalf("width 10, rate 1.225x the best at width 5 or less: width %d, want 5", got)
	}
}

// The rate compared with is the latest measured at a width, not the
// highest: a lucky round does not make every later doubling look like no
// gain.
func TestAIMDGainAgainstLatestRate(t *testing.T) {
	a := NewAIMD(4, 64)
	round(a, 10*time.Millisecond, 1000, time.Second)
	a.width = 4 // measured again, lower
	round(a, 10*time.Millisecond, 400, time.Second)
	a.width = 8
	if got := round(a, 20*time.Millisecond, 520, time.Second); got != 9 {
		t.Errorf("latency 2x, rate 1.3x the latest at width 4 (0.52x its first): width %d, want 9", got)
	}
}

// After four calm rounds the width doubles for one round; a probe that is
// congested without a gain returns to the width before and doubles the
// wait, up to 32 rounds.
func TestAIMDProbe(t *testing.T) {
	a := NewAIMD(8, 1024)
	var got []int
	for i := range 120 {
		// The rate falls a little every round, so the width holds
		// between probes; a probe's width only queues.
		lat := 10 * time.Millisecond
		if a.Width() > 16 {
			lat *= 4
		}
		got = append(got, round(a, lat, int64(1e9-i), time.Second))
	}
	// Round 1 grows to 9 (the first has no rate to compare); rounds 2
	// and 3 hold; the fourth calm round probes at 18, which returns to 9.
	want := []int{9, 9, 9, 18, 9}
	for w, wait := 9, 8; len(want) < len(got); w, wait = w+1, min(2*wait, 32) {
		// After a return the rate is not comparable, so the first
		// calm round grows by one; then it holds until the probe.
		want = append(want, w+1)
		for range wait - 2 {
			want = append(want, w+1)
		}
		want = append(want, 2*(w+1), w+1)
	}
	want = want[:len(got)]
	if !slices.Equal(got, want) {
		t.Fatalf("widths\n%v, want\n%v", got, want)
	}
}

// A probe that is not congested keeps the wider width and resets the wait.
func TestAIMDProbeKept(t *testing.T) {
	a := NewAIMD(4, 64)
	var got []int
	for range 10 {
		got = append(got, round(a, 10*time.Millisecond, 100, time.Second))
	}
	// 5, 6, 7, then the fourth calm round probes at 14 and holds; four
	// calm rounds later, 28.
	want := []int{5, 6, 7, 14, 14, 15, 16, 17, 34, 34}
	if !slices.Equal(got, want) {
		t.Errorf("widths %v, want %v", got, want)
	}
}

// The operations in flight when a probe starts were sent at the narrower
// width and are ignored.
func TestAIMDProbeSkipsInFlight(t *testing.T) {
	a := NewAIMD(4, 64)
	for range 3 {
		round(a, 10*time.Millisecond, 100, time.Second)
	}
	inFlight(a, 7)
	if got := round(a, 10*time.Millisecond, 100, time.Second); got != 14 {
		t.Fatalf("probe: width %d, want 14", got)
	}
	for i := range 7 {
		if a.Observe(10*time.Millisecond, 100) {
			t.Fatalf("operation %d of those in flight at the probe counted", i)
		}
	}
	if !a.Observe(10*time.Millisecond, 100) {
		t.Fatal("the first operation after those in flight did not count")
	}
}

// A round with fewer completions than the width, as the last of a copy,
// changes nothing, however congested.
func TestAIMDPartialRound(t *testing.T) {
	a := NewAIMD(8, 64)
	round(a, 10*time.Millisecond, 800, time.Second)
	if got := window(a, 8, time.Second, 1, time.Second); got != 9 {
		t.Errorf("partial congested round: width %d, want 9", got)
	}
	if got := round(a, 10*time.Millisecond, 900, time.Second); got != 10 {
		t.Errorf("full round after a partial one: width %d, want 10", got)
	}
}

// A round is due after as many completions as the width and at least
// their mean latency.
func TestAIMDDue(t *testing.T) {
	a := NewAIMD(4, 64)
	for _, lat := range []time.Duration{1, 2, 3} {
		a.Observe(lat*time.Millisecond, 1)
	}
	if a.Due(time.Hour) {
		t.Error("due after 3 completions at width 4")
	}
	a.Observe(6*time.Millisecond, 1) // mean 3 ms
	if a.Due(3*time.Millisecond - 1) {
		t.Error("due before the mean latency elapsed")
	}
	if !a.Due(3 * time.Millisecond) {
		t.Error("not due after 4 completions and the mean latency")
	}
}

// A cluster that gets slower for good must not pin the width at 1: at
// width 1 the latency seen becomes the new best.
func TestAIMDRecoversFromSlowerCluster(t *testing.T) {
	a := NewAIMD(8, 16)
	round(a, time.Millisecond, 0, 0)
	for range 10 {
		round(a, 10*time.Millisecond, 0, 0)
		if a.Width() == 1 {
			break
		}
	}
	if a.Width() != 1 {
		t.Fatalf("width %d after a 10x slowdown, want 1", a.Width())
	}
	for range 5 {
		round(a, 10*time.Millisecond, 0, 0)
	}
	// 2, 3, 4, then the fourth calm round probes at 8, which holds.
	if a.Width() != 8 {
		t.Errorf("width %d five windows later, want 8", a.Width())
	}
}

// sim is a deterministic backend on a virtual clock: an operation's
// latency is a function of how many operations are in flight when it is
// submitted, and waiting on it advances the clock to its completion.
type sim struct {
	t        *testing.T
	ctrl     Limiter
	latency  func(inflight int) time.Duration
	now      time.Duration
	inflight int
	last     *simOp
}

type simOp struct {
	s          *sim
	start, end time.Duration
}

func (o *simOp) Wait() error {
	o.s.now = max(o.s.now, o.end)
	o.s.inflight--
	o.s.last = o
	return nil
}

func (s *sim) submit(_ context.Context, i uint64) (Pending, error) {
	s.inflight++
	if s.inflight > s.ctrl.Width() {
		s.t.Fatalf("operation %d: %d in flight, limit %d", i, s.inflight, s.ctrl.Width())
	}
	return &simOp{s: s, start: s.now, end: s.now + s.latency(s.inflight)}, nil
}

// The OSDs serve knee operations per base latency; beyond knee in flight,
// extra operations only queue. AIMD should settle between half the knee
// and 1.6 times it (where the rate stops being 25% above the rate at half
// the width), probe no further than twice that, stay well below max, and
// keep throughput near capacity.
func TestRunAdaptiveConverges(t *testing.T) {
	const (
		n    = 20000
		knee = 16
		base = 10 * time.Millisecond
		size = 4 << 20
	)
	a := NewAIMD(1, 128)
	s := &sim{t: t, ctrl: a, latency: func(k int) time.Duration {
		return base * time.Duration(max(k, knee)) / knee
	}}
	var (
		winStart   time.Duration
		lo, hi     = a.Max(), 0
		warmupDone = n / 10
	)
	submit := func(ctx context.Context, i uint64) (Pending, error) {
		a.Submitted()
		return s.submit(ctx, i)
	}
	done := func(i uint64, err error) {
		if !a.Observe(s.last.end-s.last.start, size) {
			winStart = s.now
		} else if a.Due(s.now - winStart) {
			a.Next(s.now - winStart)
			winStart = s.now
		}
		if i >= uint64(warmupDone) {
			lo, hi = min(lo, a.Width()), max(hi, a.Width())
		}
	}
	res := RunAdaptive(context.Background(), n, a, submit, done)
	if res.Err != nil || res.Done != n || res.Width != 128 || s.inflight != 0 {
		t.Fatalf("RunAdaptive = %+v, %d in flight", res, s.inflight)
	}
	ideal := time.Duration(n/knee) * base
	t.Logf("width settled in [%d, %d]; %v for %v ideal (%.0f%%)", lo, hi, s.now, ideal, 100*float64(ideal)/float64(s.now))
	if lo < knee/2 || hi > 2*knee*8/5 {
		t.Errorf("width ranged over [%d, %d] after warm-up, want within [%d, %d]", lo, hi, knee/2, 2*knee*8/5)
	}
	if float64(s.now) > 1.1*float64(ideal) {
		t.Errorf("took %v, more than 1.1x the ideal %v", s.now, ideal)
	}
}

// stepper is a Limiter whose width the test changes from done.
type stepper struct{ width, max int }

func (s *stepper) Width() int { return s.width }
func (s *stepper) Max() int   { return s.max }

// Shrinking the limit below what is in flight drains down to it without
// abandoning anything; growing it widens the window up to Max only.
func TestRunAdaptiveLimitChanges(t *testing.T) {
	const n, maxW = 400, 12
	script := []int{8, 2, 100, 1, 0, -4, 6, 12}
	lim := &stepper{width: script[0], max: maxW}
	f := &fake{t: t, latency: jitter}
	submit := func(ctx context.Context, i uint64) (Pending, error) {
		f.mu.Lock()
		k := f.inflight
		f.mu.Unlock()
		if want := min(max(lim.width, 1), maxW); k >= want {
			t.Errorf("submit %d with %d in flight, limit %d", i, k, want)
		}
		return f.submit(ctx, i)
	}
	done := func(i uint64, err error) {
		f.done(i, err)
		lim.width = script[int(i/50)%len(script)]
	}
	res := RunAdaptive(context.Background(), n, lim, submit, done)
	f.check(res, maxW)
	if want := (Result{Done: n, Submitted: n, Width: maxW}); res != want {
		t.Errorf("RunAdaptive = %+v, want %+v", res, want)
	}
	if f.maxInflight != maxW {
		t.Errorf("max in flight %d, want %d", f.maxInflight, maxW)
	}
}

func TestRunAdaptiveFailureAndClamp(t *testing.T) {
	f := &fake{t: t, latency: jitter, waitErr: map[uint64]error{7: errAt(7)}}
	res := RunAdaptive(context.Background(), 20, &stepper{width: 5, max: 0}, f.submit, f.done)
	f.check(res, 1)
	want := Result{Done: 7, Submitted: 8, Err: f.waitErr[7], Width: 1}
	if res != want {
		t.Errorf("RunAdaptive = %+v, want %+v", res, want)
	}
}

// Slow start doubles until the first congestion signal, then adds one.
func TestSlowStart(t *testing.T) {
	a := NewSlowStartAIMD(2, 40)
	for i, want := range []int{4, 8, 16, 32, 40} {
		if got := round(a, 10*time.Millisecond, int64(100*(i+1)), time.Second); got != want {
			t.Fatalf("slow start window %d: width %d, want %d", i, got, want)
		}
	}
	b := NewSlowStartAIMD(8, 64)
	round(b, 10*time.Millisecond, 100, time.Second)
	inFlight(b, 16)
	if got := round(b, 20*time.Millisecond, 100, time.Second); got != 8 {
		t.Fatalf("congested: width %d, want 8", got)
	}
	window(b, 16, 10*time.Millisecond, 0, 0) // the operations in flight at the cut
	if got := round(b, 10*time.Millisecond, 100, time.Second); got != 9 {
		t.Errorf("after a cut: width %d, want 9 (additive)", got)
	}
	c := NewSlowStartAIMD(4, 64)
	round(c, 10*time.Millisecond, 200, time.Second)
	if got := round(c, 10*time.Millisecond, 100, time.Second); got != 8 {
		t.Fatalf("falling throughput: width %d, want 8", got)
	}
	if got := round(c, 10*time.Millisecond, 300, time.Second); got != 9 {
		t.Errorf("after throughput fell once: width %d, want 9 (additive)", got)
	}
}
