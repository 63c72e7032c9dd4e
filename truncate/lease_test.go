package truncate

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados/fake"
)

// testClock is a clock a test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// withTestClock makes the copy locks taken until the test ends read c.
func withTestClock(t *testing.T) *testClock {
	c := &testClock{t: time.Now()}
	lockClock = c.now
	t.Cleanup(func() { lockClock = time.Now })
	return c
}

// A copy lock whose lease ran out (no renewal confirmed for
// LockDuration-leaseMargin: a paused process) is lost for good, and then
// the destinations holding it write nothing: no publish, no cut-back, no
// record, no replace.
func TestLeaseRunOutStopsEveryWrite(t *testing.T) {
	clock := withTestClock(t)
	l := layout.Layout{StripeUnit: 1 << 16, StripeCount: 1, ObjectSize: 1 << 16}
	pool := fake.New().Pool("p")

	raw, err := OpenRaw(pool, l, "raw", 0)
	if err != nil {
		t.Fatal(err)
	}
	striper, err := OpenStriper(pool, "striped", l)
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.Write("raw.00000001", []byte("written past the EOF"), 0); err != nil {
		t.Fatal(err)
	}
	if err := raw.Held(); err != nil {
		t.Fatalf("a lock just taken: %v", err)
	}
	clock.add(LockDuration - leaseMargin - time.Second)
	if err := raw.Held(); err != nil {
		t.Fatalf("a second before its lease runs out: %v", err)
	}
	if err := striper.Publish(100); err != nil {
		t.Fatalf("publish while held: %v", err)
	}
	clock.add(time.Second)
	for name, held := range map[string]func() error{"raw": raw.Held, "striper": striper.Held} {
		err := held()
		if !errors.Is(err, ErrLockLost) || !strings.Contains(err.Error(), "was this process paused") {
			t.Errorf("%s: once its lease ran out, Held = %v", name, err)
		}
	}
	clock.add(-time.Hour) // a lost lock stays lost, whatever the clock says later
	writes := map[string]error{
		"raw publish":       raw.Publish(1 << 20),
		"raw cut-back":      raw.CutBack(0, 1<<20),
		"raw replace":       raw.Replace(1),
		"striper publish":   striper.Publish(1 << 20),
		"striper checkpt":   striper.Checkpoint(1 << 20),
		"striper cut-back":  striper.CutBack(0, 1<<20),
		"striper record":    striper.SetRecord([]byte("x")),
		"striper clear":     striper.ClearRecord(),
		"striper trim":      striper.TrimPast(1 << 20),
		"striper replacing": striper.Replace(nil, 0, 1),
	}
	for what, err := range writes {
		if !errors.Is(err, ErrLockLost) {
			t.Errorf("%s after the lease ran out: %v, want ErrLockLost", what, err)
		}
	}
	if raw.EOF() != 0 {
		t.Errorf("raw EOF published to %d", raw.EOF())
	}
	if !pool.Has("raw.00000001") {
		t.Error("the refused cut-back removed an object")
	}
	if size, err := striper.StoredSize(); err != nil || size != 100 {
		t.Errorf("striper.size %d (%v), want the 100 published while held", size, err)
	}
	if err := errors.Join(raw.Close(), striper.Close()); err != nil {
		t.Errorf("close: %v", err)
	}
}
