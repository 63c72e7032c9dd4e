package metrics

import (
	"math"
	"sort"
	"sync/atomic"
	"time"
)

// The histogram counts in fine buckets, four per doubling from 1ms to
// 32.768s, so that Snapshot's quantiles are good to a bucket 19% wide. The
// exported histogram sums them four at a time into doubling buckets: that
// is all a dashboard needs, and it keeps the scrape small.
const (
	subBuckets = 4
	doublings  = 15
	nFine      = subBuckets*doublings + 1 // finite upper bounds
	firstBound = 0.001                    // seconds
)

// fineBounds are the fine buckets' inclusive upper bounds in seconds; every
// subBuckets-th one is an exported bound.
var fineBounds = func() (b [nFine]float64) {
	for i := range b {
		b[i] = firstBound * math.Exp2(float64(i)/subBuckets)
	}
	return b
}()

// latency is a histogram over atomics. Its buckets, count and sum are read
// one by one, so a reader racing with writers may see a sum slightly out of
// step with the counts; the count is always the buckets' total, as
// Prometheus requires.
type latency struct {
	buckets [nFine + 1]atomic.Uint64 // the last is the overflow (+Inf)
	sumNs   atomic.Uint64
	maxNs   atomic.Int64
}

func (l *latency) observe(d time.Duration) {
	d = max(d, 0)
	i := sort.SearchFloat64s(fineBounds[:], d.Seconds())
	l.buckets[i].Add(1)
	l.sumNs.Add(uint64(d))
	for cur := l.maxNs.Load(); int64(d) > cur; cur = l.maxNs.Load() {
		if l.maxNs.CompareAndSwap(cur, int64(d)) {
			break
		}
	}
}

// histogram is a point-in-time copy of a latency.
type histogram struct {
	counts [nFine + 1]uint64
	count  uint64
	sum    time.Duration
	max    time.Duration
}

func (l *latency) read() histogram {
	var h histogram
	for i := range l.buckets {
		h.counts[i] = l.buckets[i].Load()
		h.count += h.counts[i]
	}
	h.sum = time.Duration(l.sumNs.Load())
	h.max = time.Duration(l.maxNs.Load())
	return h
}

// exported returns the cumulative counts at the exported bounds.
func (h histogram) exported() map[float64]uint64 {
	out := make(map[float64]uint64, doublings+1)
	var cum uint64
	for i := range nFine {
		cum += h.counts[i]
		if i%subBuckets == 0 {
			out[fineBounds[i]] = cum
		}
	}
	return out
}

// quantile estimates the q-quantile by interpolating linearly inside the
// bucket that holds it, as PromQL's histogram_quantile does, using the
// largest latency seen as the top of the overflow bucket. It never exceeds
// that largest latency and is 0 when nothing was observed.
func (h histogram) quantile(q float64) time.Duration {
	if h.count == 0 {
		return 0
	}
	rank := q * float64(h.count)
	var cum uint64
	for i, c := range h.counts {
		if c == 0 || float64(cum+c) < rank {
			cum += c
			continue
		}
		lo, hi := 0.0, h.max.Seconds()
		if i > 0 {
			lo = fineBounds[i-1]
		}
		if i < nFine {
			hi = min(fineBounds[i], hi)
		}
		lo = min(lo, hi)
		s := lo + (hi-lo)*(rank-float64(cum))/float64(c)
		return time.Duration(s * float64(time.Second))
	}
	return h.max
}
