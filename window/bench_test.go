package window

import (
	"context"
	"fmt"
	"runtime"
	"testing"
)

// ready is an operation that has already completed: with it the benchmarks
// measure the dispatcher alone. Being zero-sized, it boxes into a Pending
// without allocating.
type ready struct{}

func (ready) Wait() error { return nil }

func submitReady(context.Context, uint64) (Pending, error) { return ready{}, nil }

// BenchmarkRun dispatches b.N operations in one Run, so ns/op and
// allocs/op are per dispatched operation.
func BenchmarkRun(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var count uint64
	done := func(uint64, error) { count++ }
	for _, w := range []int{1, 16, 256} {
		b.Run(fmt.Sprint("width=", w), func(b *testing.B) {
			b.ReportAllocs()
			if res := Run(ctx, uint64(b.N), w, submitReady, done); res.Err != nil {
				b.Fatal(res.Err)
			}
		})
	}
	b.Run("adaptive", func(b *testing.B) {
		b.ReportAllocs()
		if res := RunAdaptive(ctx, uint64(b.N), NewAIMD(16, 256), submitReady, done); res.Err != nil {
			b.Fatal(res.Err)
		}
	})
}

// dispatchHeap runs n ready operations at width 64 and returns the peak
// heap in use while they ran (sampled every 64Ki operations) and the
// number of heap allocations made.
func dispatchHeap(n uint64) (peak, mallocs uint64) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before, peak := ms.Mallocs, ms.HeapAlloc
	sample := func(i uint64, _ error) {
		if i%(1<<16) == 0 || i == n-1 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
	}
	Run(context.Background(), n, 64, submitReady, sample)
	runtime.ReadMemStats(&ms)
	return peak, ms.Mallocs - before
}

// BenchmarkRunHeap reports the peak heap while dispatching n operations:
// it does not grow with n.
func BenchmarkRunHeap(b *testing.B) {
	for _, n := range []uint64{1_000, 1_000_000} {
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			var peak, mallocs uint64
			for b.Loop() {
				peak, mallocs = dispatchHeap(n)
			}
			b.ReportMetric(float64(peak), "peak-heap-B")
			b.ReportMetric(float64(mallocs), "mallocs/run")
		})
	}
}

// TestRunMemoryFlat proves the dispatcher's memory does not depend on n:
// a million operations cost the same handful of allocations as a thousand.
func TestRunMemoryFlat(t *testing.T) {
	small, smallMallocs := dispatchHeap(1_000)
	big, bigMallocs := dispatchHeap(1_000_000)
	t.Logf("n=1e3: peak heap %d B, %d mallocs; n=1e6: peak heap %d B, %d mallocs", small, smallMallocs, big, bigMallocs)
	if bigMallocs > 100 {
		t.Errorf("%d heap allocations for 1e6 operations", bigMallocs)
	}
	if big > small+1<<20 {
		t.Errorf("peak heap %d B for 1e6 operations vs %d B for 1e3", big, small)
	}
}
