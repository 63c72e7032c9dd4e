package radoscp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/truncate"
)

// Runs without a cluster: once the destination says its lock may be lost
// (a lease run out while the process was paused), the engine submits
// nothing more, and what the destination refuses (publish, cut-back)
// shows in the error; the operations it submitted before are all it
// wrote.
func TestCopyWritesNothingOnceTheLockIsLost(t *testing.T) {
	l := layout.Layout{StripeUnit: obj, StripeCount: 1, ObjectSize: obj}
	for _, window := range []int{1, 4} {
		t.Run(fmt.Sprintf("window-%d", window), func(t *testing.T) {
			f := newFixture(t, l, 16*obj)
			dst := &lapsing{Raw: f.raw(0), after: 5}
			res, err := f.engine.Copy(context.Background(), f.source, 0, dst, 0, 16*obj, radoscp.Options{Window: window})
			if !errors.Is(err, truncate.ErrLockLost) || !strings.Contains(err.Error(), "operation 5 not submitted") {
				t.Fatalf("err = %v, want the lost lock stopping operation 5", err)
			}
			if got := f.dst.submits.Load(); got != 5 {
				t.Errorf("%d copy-froms submitted, want the 5 before the lock was lost", got)
			}
			if got := f.objectsFrom(0, 16); len(got) != 5 {
				t.Errorf("destination objects %v, want 0-4 only", got)
			}
			if res.Bytes != 5*obj {
				t.Errorf("copied prefix %d bytes, want the 5 objects before the loss (%d)", res.Bytes, 5*obj)
			}
		})
	}
}

// lapsing is a raw destination whose lock is lost after its first `after`
// checks.
type lapsing struct {
	*truncate.Raw
	after  int64
	checks atomic.Int64
}

func (d *lapsing) Held() error {
	if d.checks.Add(1) > d.after {
		return fmt.Errorf("%w: its lease ran out", truncate.ErrLockLost)
	}
	return nil
}
