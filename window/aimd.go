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
	// gain is how much more throughput a round must bring than the best
	// measured at half its width or less for its higher latency not to
	// count as congestion.
	gain = 0.25
	// firstProbe and lastProbe bound how many calm rounds pass before the
	// width is doubled to probe for throughput a deeper queue might bring;
	// each probe that finds none doubles the wait.
	firstProbe, lastProbe = 4, 32
)

// AIMD picks an in-flight width the way TCP picks a congestion window:
// additive increase while throughput does not fall and latency holds,
// multiplicative decrease (halving) when the median latency of a round
// exceeds 1.5 times the best median seen and the round did not gain.
// A round gains when its rate is at least 25% above the best of the rates
// last measured at each width of half its own or less: a deeper queue at
// the OSDs raises latency, and is worth it only while it still buys
// throughput (growing by one, no single step shows a marked gain, so the
// comparison is with half the width). The width stays in [1, max].
//
// Like BBR, AIMD probes upward: after 4 calm rounds (none cut) it doubles
// the width for one round, keeps the wider width if that round was not
// congested or gained, and otherwise returns to the width before and waits
// twice as many rounds, up to 32, before the next probe.
//
// After a cut, the operations in flight at it (as counted by Submitted and
// Observe) are ignored, so that one burst of queueing halves the width only
// once; so are those in flight when a probe starts.
//
// Tell it of every submission with Submitted, feed it every completed
// operation with Observe, and close each round with Next once Due says it
// spans at least a round trip. AIMD is not safe for concurrent use.
type AIMD struct {
	width, max int
	best       time.Duration // lowest round median seen; 0 before any round
	prevRate   float64       // bytes/s of the previous round; < 0 when not comparable
	rateAt     []float64     // bytes/s last measured at each width; 0 where none
	lat        []time.Duration
	nlat       int
	sum        time.Duration // of the round's latencies, for its mean
	bytes      int64
	inflight   int  // submitted and not yet observed
	skip       int  // observations still to ignore after a cut or a probe
	slow       bool // slow start: double instead of adding one
	calm       int  // rounds since the last cut or probe
	wait       int  // calm rounds before the next probe
	probeFrom  int  // the width before the probe under way; 0 when none
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
	return &AIMD{width: start, max: max, prevRate: -1, rateAt: make([]float64, max+1),
		lat: make([]time.Duration, samples), wait: firstProbe}
}

// NewSlowStartAIMD is NewAIMD with TCP's slow start: until the first sign
// of congestion (latency above 1.5 times the best without a gain, or
// throughput falling) the width doubles every round instead of growing by
// one, so that a copy of a few dozen objects reaches a useful width before
// it ends.
func NewSlowStartAIMD(start, max int) *AIMD {
	a := NewAIMD(start, max)
	a.slow = true
	return a
}

// Width returns the current width.
func (a *AIMD) Width() int { return a.width }

// Max returns the largest width a may return.
func (a *AIMD) Max() int { return a.max }

// Submitted records that one operation was sent. Those sent and not yet
// observed are the ones a cut ignores; without Submitted, a cut ignores
// none.
func (a *AIMD) Submitted() { a.inflight++ }

// Observe records one completed operation: how long it took and the bytes
// it moved. It reports whether the operation counts towards the current
// round: one in flight at the last cut or probe does not, and a caller
// timing the round should start its clock after the last of those.
func (a *AIMD) Observe(latency time.Duration, bytes int64) bool {
	a.inflight = max(a.inflight-1, 0)
	if a.skip > 0 {
		// Sent at the old width: it says nothing about the new one.
		a.skip--
		return false
	}
	a.lat[a.nlat%len(a.lat)] = latency
	a.nlat++
	a.sum += latency
	a.bytes += bytes
	return true
}

// Due reports whether the current round, open for elapsed, may close: it
// has as many observations as the width, and lasted at least their mean
// latency. A shorter round would take a burst of completions for the rate.
func (a *AIMD) Due(elapsed time.Duration) bool {
	return a.nlat > 0 && a.nlat >= a.width && elapsed >= a.sum/time.Duration(a.nlat)
}

// Next closes the current round, which lasted elapsed, and returns the
// width to use next. A round with fewer observations than the width (the
// last of a copy) changes nothing and is dropped; elapsed <= 0 leaves
// throughput out of the decision.
func (a *AIMD) Next(elapsed time.Duration) int {
	if a.nlat < a.width {
		a.nlat, a.sum, a.bytes = 0, 0, 0
		return a.width
	}
	s := a.lat[:min(a.nlat, len(a.lat))]
	slices.Sort(s)
	p50 := s[(len(s)-1)/2]
	rate := -1.0
	if elapsed > 0 {
		rate = float64(a.bytes) / elapsed.Seconds()
		// The latest, not the highest: one lucky round's rate, kept
		// for good, would make every later round at twice the width
		// look like no gain, and halve the width again and again.
		a.rateAt[a.width] = rate
	}
	a.nlat, a.sum, a.bytes = 0, 0, 0

	// At width 1 nothing queues behind our own operations, so that
	// latency is the floor; taking it as the new best lets the width
	// recover after the cluster itself got slower.
	if a.best == 0 || a.width == 1 || p50 < a.best {
		a.best = p50
	}
	probing := a.probeFrom > 0
	switch {
	case float64(p50) > congested*float64(a.best) && !a.gained(rate):
		if probing {
			a.width = a.probeFrom
			a.wait = min(2*a.wait, lastProbe)
		} else {
			a.width = max(a.width/2, 1)
		}
		a.cut()
		rate = -1 // a lower rate after a cut is expected, not a signal
	case probing:
		a.wait, a.probeFrom = firstProbe, 0
	default:
		grow := rate >= a.prevRate || rate < 0 || a.prevRate < 0
		if grow && a.slow {
			a.width = min(a.width*2, a.max)
			break
		}
		a.slow = a.slow && grow
		// A calm round: the width grows by one, or holds while
		// throughput falls. Every wait-th, it probes instead.
		if a.calm++; a.calm >= a.wait && a.width < a.max {
			a.probeFrom = a.width
			a.width = min(a.width*2, a.max)
			a.calm, a.skip = 0, a.inflight
		} else if grow {
			a.width = min(a.width+1, a.max)
		}
	}
	a.prevRate = rate
	return a.width
}

// cut ends slow start and any probe after the width fell, and ignores the
// operations in flight, sent at the old width.
func (a *AIMD) cut() {
	a.skip = a.inflight
	a.slow = false
	a.calm, a.probeFrom = 0, 0
}

// gained reports whether rate is at least gain above the best of the
// rates last measured at each width of half the current one or less.
func (a *AIMD) gained(rate float64) bool {
	if rate < 0 {
		return false
	}
	best := 0.0
	for _, r := range a.rateAt[1 : a.width/2+1] {
		best = max(best, r)
	}
	return best > 0 && rate >= best*(1+gain)
}
