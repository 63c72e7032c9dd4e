package radoscp_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/truncate"
)

// BenchmarkEngineRealInFlight copies 256 objects of 64 KiB on the test
// cluster at window 64, with every OSD reply delayed up to 50 ms so that
// the window stays full, and reports what each copy in flight costs the
// client: OS threads and goroutines above the idle process (sampled every
// millisecond; the peak), besides the time per object. Copy-from
// completions are signalled by librados' callback, so neither grows with
// the window: a copy in flight is an entry in a table (before, each held
// an OS thread blocked in AioCompletion::wait_for_complete and a goroutine).
//
//	go test -tags pacific -run '^$' -bench EngineRealInFlight .
func BenchmarkEngineRealInFlight(b *testing.B) {
	const n, window = 256, 64
	l := layout.Layout{StripeUnit: 64 << 10, StripeCount: 1, ObjectSize: 64 << 10}
	source, dst := benchSource(b, delayedPool(b, 0.05), l, n)
	idleThreads, idleGoroutines := osThreads(b), runtime.NumGoroutine()
	var peakThreads, peakGoroutines atomic.Int64
	for b.Loop() {
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			for {
				select {
				case <-stop:
					return
				case <-time.After(time.Millisecond):
				}
				th, gr := int64(osThreads(b)), int64(runtime.NumGoroutine()-1)
				peakThreads.Store(max(peakThreads.Load(), th))
				peakGoroutines.Store(max(peakGoroutines.Load(), gr))
			}
		}()
		res, err := radoscp.NewEngine(nil, quiet).Copy(context.Background(), source, 0,
			truncate.NewRaw(source.Objects, l, dst, 0), 0, source.Size, radoscp.Options{Window: window})
		close(stop)
		<-sampled
		if err != nil || res.Objects != n {
			b.Fatalf("copied %d of %d objects: %v", res.Objects, n, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
	b.ReportMetric(float64(peakThreads.Load()-int64(idleThreads))/window, "threads/copy-in-flight")
	b.ReportMetric(float64(peakGoroutines.Load()-int64(idleGoroutines))/window, "goroutines/copy-in-flight")
}

// osThreads is the process's OS thread count (Threads: in /proc/self/status).
func osThreads(tb testing.TB) int {
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(st), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				tb.Fatal(err)
			}
			return n
		}
	}
	tb.Fatal("no Threads: in /proc/self/status")
	return 0
}
