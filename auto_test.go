package radoscp_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/window"
)

// windows records every window the engine reports.
type windows struct {
	radoscp.NopObserver
	mu   sync.Mutex
	seen []int
}

func (w *windows) Window(n int) { w.mu.Lock(); w.seen = append(w.seen, n); w.mu.Unlock() }

func autoCopy(t *testing.T, n int, maxWindow int, latency func(inFlight int64) time.Duration) (*fixture, *windows, radoscp.Result) {
	t.Helper()
	f := newFixture(t, small, n*obj)
	f.store.Latency = func(string) time.Duration { return latency(f.dst.inFlight.Load()) }
	w := &windows{}
	f.engine = radoscp.NewEngine(w, nil)
	res, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), 0, uint64(n)*obj,
		radoscp.Options{Auto: true, MaxWindow: maxWindow})
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, "copy", f.read(t, 0, uint64(n)*obj), f.data)
	if got := f.dst.maxInFlight.Load(); got > int64(maxWindow) {
		t.Errorf("%d copy-froms in flight, max-window %d", got, maxWindow)
	}
	t.Logf("windows %v; reached %d; %d at most in flight", w.seen, res.Window, f.dst.maxInFlight.Load())
	return f, w, res
}

// While latency holds, the window grows to max-window and no further.
func TestAutoGrowsWhileLatencyHolds(t *testing.T) {
	const maxW = 24
	f, w, res := autoCopy(t, 300, maxW, func(int64) time.Duration { return time.Millisecond })
	if !res.Auto || res.Window != maxW {
		t.Errorf("auto %v, window reached %d, want %d", res.Auto, res.Window, maxW)
	}
	if got := f.dst.maxInFlight.Load(); got != maxW {
		t.Errorf("%d copy-froms in flight at most, want max-window %d", got, maxW)
	}
	for i := 1; i < len(w.seen); i++ {
		if w.seen[i] < w.seen[i-1] {
			t.Errorf("window fell from %d to %d with flat latency: %v", w.seen[i-1], w.seen[i], w.seen)
		}
	}
}

// The cluster serves 4 copies per base latency; beyond that, latency
// climbs with the square of the number in flight, so a wider window brings
// less throughput, not more. The window must back off from its slow-start
// peak and never pass max-window.
func TestAutoBacksOffWhenLatencyClimbs(t *testing.T) {
	const knee, base = 4, 2 * time.Millisecond
	_, w, res := autoCopy(t, 300, 64, func(k int64) time.Duration {
		k = max(k, knee)
		return base * time.Duration(k*k) / (knee * knee)
	})
	peak, cut := 0, false
	for _, n := range w.seen {
		if n < peak {
			cut = true
		}
		peak = max(peak, n)
	}
	if !cut {
		t.Errorf("the window never backed off as latency climbed: %v", w.seen)
	}
	if res.Window != peak || peak > 64 {
		t.Errorf("window reached %d (result %d), want at most max-window 64", peak, res.Window)
	}
	if last := w.seen[len(w.seen)-1]; last >= peak {
		t.Errorf("window ended at %d, not below its peak %d: %v", last, peak, w.seen)
	}
}

// MaxWindow 0 caps the window at window.DefaultMaxWidthFor the copy's
// objects: a quarter of 400, above the floor of 64 and below the bound
// of 128. With flat latency nothing is cut, and with 20 ms copies the
// rate of a round at a wider window is not lost in the machine's noise,
// so the window passes 64 (by slow start, additive increase or a probe)
// and stops at 100.
func TestAutoMaxWindowByObjects(t *testing.T) {
	const n, want = 400, 100
	if got := window.DefaultMaxWidthFor(n); got != want {
		t.Fatalf("DefaultMaxWidthFor(%d) = %d, want %d", n, got, want)
	}
	f := newFixture(t, small, n*obj)
	f.store.Latency = func(string) time.Duration { return 20 * time.Millisecond }
	w := &windows{}
	f.engine = radoscp.NewEngine(w, nil)
	res, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), 0, n*obj,
		radoscp.Options{Auto: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Window <= window.DefaultMaxWidth || res.Window > want {
		t.Errorf("window reached %d, want past %d and at most %d: %v", res.Window, window.DefaultMaxWidth, want, w.seen)
	}
	if got := f.dst.maxInFlight.Load(); got > want {
		t.Errorf("%d copy-froms in flight, cap %d", got, want)
	}
}

// Copies into existing data stay serial with auto.
func TestAutoSerialIntoExistingData(t *testing.T) {
	f := newFixture(t, small, 20*obj)
	res, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(20*obj), 0, 20*obj,
		radoscp.Options{Auto: true, MaxWindow: 64})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Serial || res.Auto || res.Window != 1 || f.dst.maxInFlight.Load() != 1 {
		t.Errorf("serial %v auto %v window %d, %d in flight; want a serial copy at window 1",
			res.Serial, res.Auto, res.Window, f.dst.maxInFlight.Load())
	}
}
