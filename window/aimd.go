package window

import (
	"context"
	"slices"
	"time"
)

// Limiter supplies RunAdaptive's in-flight limit.
type Limiter interface {
	// Max bounds the limit for a whole run; RunAdaptive reads it once, to
	// size its ring.
	Max() int
	// Width is the current limit. RunAdaptive calls it on its own
	// goroutine before every submission, so a Limiter fed from the done
	// callback needs no locking.
	Width() int
}

var _ Limiter = (*AIMD)(nil)

// RunAdaptive is Run with an in-flight limit that may change between
// submissions: ctrl.Width is consulted before each one and clamped to
// [1, ctrl.Max]. A lower limit never abandons or hurries operations already
// in flight; RunAdaptive just stops submitting until they drain below it.
// Memory is O(min(ctrl.Max, n)). Failures, cancellation and draining are
// exactly as for Run.
func RunAdaptive(ctx context.Context, n uint64, ctrl Limiter, submit Submit, done func(i uint64, err error)) Result {
	return run(ctx, n, max(ctrl.Max(), 1), ctrl, submit, done)
}

const (
	// congested is how far the median latency may rise above the best
	// seen before the width is cut: beyond it, added operations queue
	// at the server instead of adding throughput.
	congested = 1.5
	// samples bounds the latencies kept per observation window; the most
	// recent ones win.
	samples = 256
	// gain is how much more throughput a round must bring for its higher
	// latency not to count as congestion.
	gain = 0.10
)

// AIMD picks an in-flight width the way TCP picks a congestion window:
// additive increase while throughput does not fall and latency holds,
// multiplicative decrease (halving) when the median latency of a window
// exceeds 1.5 times the best median seen and the window did not bring at
// least 10% more throughput than the one before. The width stays in [1, max].
// After a cut, as many observations as were in flight before it are
// ignored, so that one burst of queueing halves the width only once.
//
// Feed it every completed operation with Observe and close each
// observation window with Next; a window should span at least one round
// trip, e.g. Width completions. AIMD is not safe for concurrent use.
type AIMD struct {
	width, max int
	best       time.Duration // lowest window median seen; 0 before any window
	prevRate   float64       // bytes/s of the previous window; < 0 when not comparable
	lat        []time.Duration
	nlat       int
	bytes      int64
	skip       int  // observations still to ignore after a cut
	slow       bool // slow start: double instead of adding one
}

// NewAIMD returns an AIMD that starts at width start and never exceeds max.
// Both are clamped to at least 1, and start to at most max.
func NewAIMD(start, max int) *AIMD {
	if max < 1 {
		max = 1
	}
	start = min(start, max)
	if start < 1 {
		start = 1
	}
	return &AIMD{width: start, max: max, prevRate: -1, lat: make([]time.Duration, samples)}
}

// NewSlowStartAIMD is NewAIMD with TCP's slow start: until the first sign
// of congestion (latency above 1.5 times the best, or throughput falling)
// the width doubles every window instead of growing by one, so that a
// copy of a few dozen objects reaches a useful width before it ends.
func NewSlowStartAIMD(start, max int) *AIMD {
	a := NewAIMD(start, max)
	a.slow = true
	return a
}

// Width returns the current width.
func (a *AIMD) Width() int { return a.width }

// Max returns the largest width a may return.
func (a *AIMD) Max() int { return a.max }

// Observe records one completed operation: how long it took and the bytes
// it moved.
func (a *AIMD) Observe(latency time.Duration, bytes int64) {
	if a.skip > 0 {
		// Still one of the operations in flight at the last cut: it was
		// sent at the old width and says nothing about the new one.
		a.skip--
		return
	}
	a.lat[a.nlat%len(a.lat)] = latency
	a.nlat++
	a.bytes += bytes
}

// Next closes the current observation window, which lasted elapsed, and
// returns the width to use next. A window without observations changes
// nothing; elapsed <= 0 leaves throughput out of the decision.
func (a *AIMD) Next(elapsed time.Duration) int {
	if a.nlat == 0 {
		return a.width
	}
	s := a.lat[:min(a.nlat, len(a.lat))]
	slices.Sort(s)
	p50 := s[(len(s)-1)/2]
	rate := -1.0
	if elapsed > 0 {
		rate = float64(a.bytes) / elapsed.Seconds()
	}
	a.nlat, a.bytes = 0, 0

	// At width 1 nothing queues behind our own operations, so that
	// latency is the floor; taking it as the new best lets the width
	// recover after the cluster itself got slower.
	if a.best == 0 || a.width == 1 || p50 < a.best {
		a.best = p50
	}
	// Latency above the threshold is congestion only if the round did not
	// also move markedly more bytes: when it did, the added operations
	// still add throughput (replies that queue in order behind a slow one
	// raise the median without saturating the OSDs).
	gained := rate >= 0 && a.prevRate > 0 && rate >= a.prevRate*(1+gain)
	switch {
	case float64(p50) > congested*float64(a.best) && !gained:
		a.skip = a.width
		a.width = max(a.width/2, 1)
		a.slow = false
		rate = -1 // a lower rate after a cut is expected, not a signal
	case rate >= a.prevRate || rate < 0 || a.prevRate < 0:
		if a.slow {
			a.width = min(a.width*2, a.max)
		} else {
			a.width = min(a.width+1, a.max)
		}
	default:
		a.slow = false
	}
	a.prevRate = rate
	return a.width
}
