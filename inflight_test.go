package radoscp_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/truncate"
	"github.com/radoscp/radoscp/window"
)

// Four copies at once through one engine, each with a window of 64 and
// 96 objects, ask for 256 copy-froms in flight: the engine keeps them to
// window.MaxInFlight over all four, or to the bound SetMaxInFlight gives.
// Completions are held until that many are in flight, so the bound is
// reached (not just respected by a slow submitter), and every copy is
// whole afterwards.
func TestEngineBoundsCopyFromsInFlight(t *testing.T) {
	const copies, objects = 4, 96
	for _, tc := range []struct {
		name string
		set  int // SetMaxInFlight's argument; 0: not called
		want int
	}{
		{"default", 0, window.MaxInFlight},
		{"lowered", 32, 32},
		{"lifted", copies * 64, copies * 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, small, objects*int(small.ObjectSize))
			if tc.set > 0 {
				f.engine.SetMaxInFlight(tc.set)
			}
			f.dst.holdUntil(tc.want)
			var wg sync.WaitGroup
			errs := make([]error, copies)
			for k := range copies {
				wg.Add(1)
				go func() {
					defer wg.Done()
					dst := truncate.NewRaw(f.dst, small, fmt.Sprintf("dst%d", k), 0)
					_, errs[k] = f.engine.Copy(context.Background(), f.source, 0, dst, 0, f.source.Size, radoscp.Options{Window: 64})
				}()
			}
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatalf("copies still running after a minute, %d copy-froms in flight at most (held until %d)", f.dst.maxInFlight.Load(), tc.want)
			}
			for k, err := range errs {
				if err != nil {
					t.Fatalf("copy %d: %v", k, err)
				}
				assertEqual(t, fmt.Sprintf("copy %d", k), readFile(t, f.dstP, small, layout.Prefix(fmt.Sprintf("dst%d", k)), 0, f.source.Size), f.data)
			}
			if got := f.dst.maxInFlight.Load(); got != int64(tc.want) {
				t.Fatalf("%d copy-froms in flight at most over %d copies of window 64; want %d", got, copies, tc.want)
			}
			if got := f.engine.PeakInFlight(); got != tc.want {
				t.Fatalf("the engine reports %d in flight at most; want %d", got, tc.want)
			}
			if got := f.dst.submits.Load(); got != copies*objects {
				t.Fatalf("%d copy-froms; want %d", got, copies*objects)
			}
		})
	}
}

// A copy waiting for a token stops when its context ends, and publishes
// what it completed; the tokens of the copy-froms it did start come back.
func TestEngineInFlightWaitCancels(t *testing.T) {
	f := newFixture(t, small, 200*int(small.ObjectSize))
	f.dst.holdUntil(1000) // never: every copy-from stays in flight
	ctx, cancel := context.WithCancel(context.Background())
	type out struct {
		res radoscp.Result
		err error
	}
	first := make(chan out, 1)
	go func() {
		res, err := f.engine.Copy(ctx, f.source, 0, f.raw(0), 0, f.source.Size, radoscp.Options{Window: window.MaxInFlight})
		first <- out{res, err}
	}()
	for f.dst.inFlight.Load() < window.MaxInFlight {
		time.Sleep(time.Millisecond)
	}
	second := make(chan error, 1)
	go func() {
		dst := truncate.NewRaw(f.dst, small, "other", 0)
		_, err := f.engine.Copy(ctx, f.source, 0, dst, 0, f.source.Size, radoscp.Options{Window: 4})
		second <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if n := f.dst.submits.Load(); n != window.MaxInFlight {
		t.Fatalf("%d copy-froms submitted with every token held; want %d", n, window.MaxInFlight)
	}
	cancel()
	if err := <-second; err == nil || ctx.Err() == nil {
		t.Fatalf("the waiting copy: %v; want the context's error", err)
	}
	f.dst.release()
	o := <-first
	if o.err == nil || o.res.Bytes != window.MaxInFlight*small.ObjectSize {
		t.Fatalf("the first copy: %+v, %v; want the context's error after %d objects", o.res, o.err, window.MaxInFlight)
	}
}

// A serial copy (into the middle of existing data) hides its copy-froms'
// completion from the window, which then waits on each (waitOnly): each
// gives its place back there. Had one of them kept its place, the copy
// would stop at the 129th copy-from, waiting for a place for ever.
func TestSerialCopyGivesPlacesBack(t *testing.T) {
	const objects, copied = 200, 150
	obj := small.ObjectSize
	f := newFixture(t, small, objects*int(obj))
	old := randomData(9, objects*int(obj))
	writeFile(t, f.dstP, small, dstNames, 0, old)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := f.engine.Copy(ctx, f.source, 0, f.raw(objects*obj), 0, copied*obj, radoscp.Options{Window: 16})
	if err != nil || !res.Serial {
		t.Fatalf("copy: %+v, %v; want a serial copy of %d objects", res, err, copied)
	}
	if n := f.dst.submits.Load(); n != copied {
		t.Fatalf("%d copy-froms; want %d, more than the engine's %d places", n, copied, window.MaxInFlight)
	}
	if got := f.engine.PeakInFlight(); got != 1 {
		t.Fatalf("%d copy-froms in flight at most; a serial copy has 1", got)
	}
	assertEqual(t, "copied range", f.read(t, 0, copied*obj), f.data[:copied*obj])
	assertEqual(t, "data past it", f.read(t, copied*obj, (objects-copied)*obj), old[copied*obj:])
}
