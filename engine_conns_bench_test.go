package radoscp_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
)

// spread sends each copy-from through the next of several connections'
// pools, round robin; everything else goes through the first.
type spread struct {
	store.Objects
	pools []store.Objects
	next  atomic.Uint64
}

func (s *spread) Submit(dstOid string, src store.Location, o store.CopyOptions) (store.Pending, error) {
	return s.pools[s.next.Add(1)%uint64(len(s.pools))].Submit(dstOid, src, o)
}

// BenchmarkEngineRealConnections asks whether more than one connection
// to the OSDs speeds up a latency-bound copy: librados delivers each
// connection's replies in order, so replies might queue behind a late
// one. The pinning issue's case (256 objects of 256 KiB, every OSD reply
// delayed up to 20 ms, window 16, pinned) with the copy-froms spread over
// 1, 2 and 4 connections. On the 2-core test machine they were the same
// within the noise (see docs/benchmarks.md): Ceph's delayed delivery
// pops the oldest reply at each timer, so order costs no time on average.
//
//	go test -tags pacific -run '^$' -bench EngineRealConnections -count 5 .
func BenchmarkEngineRealConnections(b *testing.B) {
	const n = 256
	l := layout.Layout{StripeUnit: 256 << 10, StripeCount: 1, ObjectSize: 256 << 10}
	var pools []store.Objects
	for range 4 {
		pools = append(pools, delayedPool(b, 0.02))
	}
	source, dst := benchSource(b, pools[0], l, n)
	for _, k := range []int{1, 2, 4} {
		b.Run("conns="+strconv.Itoa(k), func(b *testing.B) {
			objs := &spread{Objects: pools[0], pools: pools[:k]}
			for b.Loop() {
				res, err := radoscp.NewEngine(nil, quiet).Copy(context.Background(), source, 0,
					truncate.NewRaw(objs, l, dst, 0), 0, source.Size, radoscp.Options{Window: 16, PinSource: true})
				if err != nil || res.Objects != n {
					b.Fatalf("copied %d of %d objects: %v", res.Objects, n, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
		})
	}
}
