package radoscp_test

import (
	"context"
	"math"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/radoscp/radoscp"
)

// fakeTime is a clock whose Sleep moves it on at once: a throttled copy's
// pace is the virtual time it took, free of the machine's speed.
type fakeTime struct {
	mu    sync.Mutex
	now   time.Time
	slept time.Duration
}

func (c *fakeTime) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeTime) Sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
		c.slept += d
	}
	return nil
}

// A byte rate and an operation rate each hold within 10% over a copy of
// many objects, with the window still keeping copies in flight.
func TestThrottleHoldsTheRate(t *testing.T) {
	for _, c := range []struct {
		name       string
		bytes, ops float64
		want       func(objects, bytes uint64) time.Duration
	}{
		{"bytes", 2 << 20, 0, func(_, b uint64) time.Duration { return time.Duration(float64(b) / (2 << 20) * float64(time.Second)) }},
		{"operations", 0, 50, func(n, _ uint64) time.Duration { return time.Duration(float64(n) / 50 * float64(time.Second)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, small, 400*int(small.ObjectSize))
			clock := &fakeTime{now: time.Unix(1e9, 0)}
			th := radoscp.NewThrottle(c.bytes, c.ops, clock)
			res, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), 0, f.source.Size, radoscp.Options{Window: 8, Throttle: th})
			if err != nil {
				t.Fatal(err)
			}
			want := c.want(res.Objects, res.Bytes)
			if got := clock.slept; math.Abs(float64(got-want)) > 0.1*float64(want) {
				t.Fatalf("%d objects, %d bytes took %s of throttled time; the limit gives %s (±10%%)", res.Objects, res.Bytes, got, want)
			}
			if f.dst.maxInFlight.Load() < 2 {
				t.Fatalf("at most %d copies in flight under the limit: the window did not overlap them", f.dst.maxInFlight.Load())
			}
		})
	}
	if radoscp.NewThrottle(0, 0, nil) != nil {
		t.Fatal("a throttle with no limits")
	}
}

// progressClock is a fake clock whose Sleep lets the time pass for the
// copies in flight (it returns once they have all completed) and records
// how far the copy's reported progress lags behind its submissions.
type progressClock struct {
	fakeTime
	f      *fixture
	maxLag int64 // submitted objects not yet reported as progress
}

func (c *progressClock) Sleep(ctx context.Context, d time.Duration) error {
	for c.f.dst.inFlight.Load() > 0 {
		runtime.Gosched()
	}
	c.f.obs.mu.Lock()
	lag := c.f.dst.submits.Load() - int64(c.f.obs.progress/small.ObjectSize)
	c.f.obs.mu.Unlock()
	c.maxLag = max(c.maxLag, lag)
	return c.fakeTime.Sleep(ctx, d)
}

// Under --max-rate the copies a throttled submission waits behind are
// reported (progress, metrics, checkpoints) while it waits: the window
// hands back what completed before it submits again. Held back until the
// window filled, a throttled copy killed after a few seconds had
// checkpointed nothing and showed 0% until a jump.
func TestThrottleDoesNotHoldBackProgress(t *testing.T) {
	f := newFixture(t, small, 40*int(small.ObjectSize))
	clock := &progressClock{fakeTime: fakeTime{now: time.Unix(1e9, 0)}, f: f}
	th := radoscp.NewThrottle(0, 10, clock)
	res, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), 0, f.source.Size, radoscp.Options{Window: 16, Throttle: th})
	if err != nil || res.Objects != 40 {
		t.Fatalf("copy: %+v, %v", res, err)
	}
	if clock.slept == 0 {
		t.Fatal("the throttle never held a submission back")
	}
	// The copy submitted just before a throttled submission may still be
	// in flight when the window looks; the one before it is handed back.
	if clock.maxLag > 2 {
		t.Fatalf("a throttled submission waited with %d submitted copies not yet reported as progress, want at most 2", clock.maxLag)
	}
}
