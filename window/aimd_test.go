package window

import (
	"context"
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

// window feeds one observation window of count operations of latency lat that moved
// bytes in elapsed, and returns the next width.
func window(a *AIMD, count int, lat time.Duration, bytes int64, elapsed time.Duration) int {
	for range count {
		a.Observe(lat, bytes/int64(count))
	}
	return a.Next(elapsed)
}

func TestAIMDSteps(t *testing.T) {
	a := NewAIMD(4, 6)
	if got := a.Next(time.Second); got != 4 {
		t.Errorf("empty window moved width to %d", got)
	}
	// Throughput rising, latency flat: +1 up to max.
	for i, want := range []int{5, 6, 6} {
		if got := window(a, 4, 10*time.Millisecond, int64(100*(i+1)), time.Second); got != want {
			t.Fatalf("rising window %d: width %d, want %d", i, got, want)
		}
	}
	// Latency flat, throughput fell: hold.
	if got := window(a, 4, 10*time.Millisecond, 100, time.Second); got != 6 {
		t.Errorf("falling throughput: width %d, want 6", got)
	}
	// Latency at 1.5x the best still holds; above it halves.
	if got := window(a, 4, 15*time.Millisecond, 100, time.Second); got != 6 {
		t.Errorf("p50 at 1.5x best: width %d, want 6", got)
	}
	// Above it halves, and the 6 operations in flight at the cut, sent
	// at the old width, are ignored.
	if got := window(a, 4, 16*time.Millisecond, 100, time.Second); got != 3 {
		t.Fatalf("congested: width %d, want 3", got)
	}
	if got := window(a, 6, time.Hour, 100, time.Second); got != 3 {
		t.Fatalf("operations in flight at the cut moved width to %d", got)
	}
	if got := window(a, 3, 16*time.Millisecond, 100, time.Second); got != 1 {
		t.Fatalf("still congested: width %d, want 1", got)
	}
	// At width 1 the latency seen becomes the best: increase resumes.
	if got := window(a, 4, 16*time.Millisecond, 100, time.Second); got != 2 {
		t.Errorf("width 1: next width %d, want 2", got)
	}
	// The median, not the mean, decides: one slow outlier is ignored.
	b := NewAIMD(8, 16)
	window(b, 5, 10*time.Millisecond, 0, 0)
	for range 4 {
		b.Observe(10*time.Millisecond, 0)
	}
	b.Observe(time.Second, 0)
	if got := b.Next(0); got != 10 {
		t.Errorf("outlier: width %d, want 10", got)
	}
}

// Latency that climbs while throughput climbs with it is not congestion:
// the width keeps growing; once throughput stops rising, it is cut.
func TestAIMDLatencyWithThroughput(t *testing.T) {
	a := NewAIMD(8, 64)
	window(a, 8, 10*time.Millisecond, 800, time.Second)
	for i, want := range []int{10, 11} {
		// p50 at 2x and 3x the best, throughput up 50% each round.
		lat := time.Duration(20*(i+1)) * time.Millisecond
		if got := window(a, 8, lat, int64(1200*(i+1)), time.Second); got != want {
			t.Fatalf("round %d: width %d, want %d (latency up, throughput up)", i, got, want)
		}
	}
	if got := window(a, 8, 40*time.Millisecond, 2450, time.Second); got != 5 {
		t.Fatalf("latency up, throughput flat: width %d, want 5", got)
	}
}

// A cluster that gets slower for good must not pin the width at 1: at
// width 1 the latency seen becomes the new best.
func TestAIMDRecoversFromSlowerCluster(t *testing.T) {
	a := NewAIMD(8, 16)
	window(a, 8, time.Millisecond, 0, 0)
	for range 10 {
		window(a, 8, 10*time.Millisecond, 0, 0)
		if a.Width() == 1 {
			break
		}
	}
	if a.Width() != 1 {
		t.Fatalf("width %d after a 10x slowdown, want 1", a.Width())
	}
	for range 5 {
		window(a, 8, 10*time.Millisecond, 0, 0)
	}
	if a.Width() != 6 {
		t.Errorf("width %d five windows later, want 6", a.Width())
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
// extra operations only queue. AIMD should saw between about half and 1.5
// times the knee (a window's median lags the width by a step or two), well
// below max, and keep throughput near capacity.
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
		seen       int
		winStart   time.Duration
		lo, hi     = a.Max(), 0
		warmupDone = n / 10
	)
	done := func(i uint64, err error) {
		a.Observe(s.last.end-s.last.start, size)
		if seen++; seen >= a.Width() {
			a.Next(s.now - winStart)
			seen, winStart = 0, s.now
		}
		if i >= uint64(warmupDone) {
			lo, hi = min(lo, a.Width()), max(hi, a.Width())
		}
	}
	res := RunAdaptive(context.Background(), n, a, s.submit, done)
	if res.Err != nil || res.Done != n || res.Width != 128 || s.inflight != 0 {
		t.Fatalf("RunAdaptive = %+v, %d in flight", res, s.inflight)
	}
	ideal := time.Duration(n/knee) * base
	t.Logf("width settled in [%d, %d]; %v for %v ideal (%.0f%%)", lo, hi, s.now, ideal, 100*float64(ideal)/float64(s.now))
	if lo < knee/2 || hi > knee*3/2+2 {
		t.Errorf("width ranged over [%d, %d] after warm-up, want within [%d, %d]", lo, hi, knee/2, knee*3/2+2)
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
		if got := window(a, a.Width(), 10*time.Millisecond, int64(100*(i+1)), time.Second); got != want {
			t.Fatalf("slow start window %d: width %d, want %d", i, got, want)
		}
	}
	b := NewSlowStartAIMD(8, 64)
	window(b, 8, 10*time.Millisecond, 100, time.Second)
	if got := window(b, 16, 20*time.Millisecond, 100, time.Second); got != 8 {
		t.Fatalf("congested: width %d, want 8", got)
	}
	window(b, 16, 10*time.Millisecond, 0, 0) // the operations in flight at the cut
	if got := window(b, 8, 10*time.Millisecond, 100, time.Second); got != 9 {
		t.Errorf("after a cut: width %d, want 9 (additive)", got)
	}
	c := NewSlowStartAIMD(4, 64)
	window(c, 4, 10*time.Millisecond, 200, time.Second)
	if got := window(c, 8, 10*time.Millisecond, 100, time.Second); got != 8 {
		t.Fatalf("falling throughput: width %d, want 8", got)
	}
	if got := window(c, 8, 10*time.Millisecond, 300, time.Second); got != 9 {
		t.Errorf("after throughput fell once: width %d, want 9 (additive)", got)
	}
}
