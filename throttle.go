package radoscp

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/time/rate"
)

// Throttle caps how fast copies start work, so that a scheduled job
// cannot saturate a cluster it shares with users: bytes per second and
// operations per second, each a token bucket (golang.org/x/time/rate).
// One Throttle is shared by every copy of a run (the files of a tree
// copy, the lines of a batch), so the limits hold for the run as a whole.
// The window still keeps operations in flight under the limits: a
// throttle delays submissions, not completions.
type Throttle struct {
	bytes, ops *rate.Limiter
	clock      SleepClock
}

// SleepClock is a Clock that can also wait; tests give a fake one so that
// a throttled copy's pace can be measured without sleeping.
type SleepClock interface {
	Clock
	// Sleep waits d, or until ctx is done (then it returns ctx.Err()).
	Sleep(ctx context.Context, d time.Duration) error
}

type systemSleepClock struct{ systemClock }

func (systemSleepClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// NewThrottle limits to bytesPerSec and opsPerSec (0: no limit on that);
// clock nil means the system clock. It returns nil when neither is set.
func NewThrottle(bytesPerSec, opsPerSec float64, clock SleepClock) *Throttle {
	if bytesPerSec <= 0 && opsPerSec <= 0 {
		return nil
	}
	if clock == nil {
		clock = systemSleepClock{}
	}
	t := &Throttle{clock: clock}
	if bytesPerSec > 0 {
		// A burst of a quarter second's bytes (1 MiB at least): larger
		// operations take several tokens' worth in turn.
		t.bytes = rate.NewLimiter(rate.Limit(bytesPerSec), max(int(bytesPerSec/4), 1<<20))
	}
	if opsPerSec > 0 {
		t.ops = rate.NewLimiter(rate.Limit(opsPerSec), max(int(opsPerSec/4), 1))
	}
	return t
}

// wait holds back the start of an operation carrying n bytes until both
// limits allow it. On cancellation it returns ctx's error, and the
// operation is not started.
func (t *Throttle) wait(ctx context.Context, n uint64) error {
	if t == nil {
		return nil
	}
	if err := t.take(ctx, t.ops, 1); err != nil {
		return err
	}
	for n > 0 && t.bytes != nil {
		k := min(n, uint64(t.bytes.Burst()))
		if err := t.take(ctx, t.bytes, int(k)); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

func (t *Throttle) take(ctx context.Context, l *rate.Limiter, n int) error {
	if l == nil {
		return nil
	}
	now := t.clock.Now()
	r := l.ReserveN(now, n)
	if !r.OK() {
		return fmt.Errorf("throttle: %d exceeds the burst of %d", n, l.Burst())
	}
	if err := t.clock.Sleep(ctx, r.DelayFrom(now)); err != nil {
		r.CancelAt(t.clock.Now())
		return err
	}
	return nil
}
