package radoscp_test

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// small is the layout of most fake tests: 64 KiB objects keep them fast.
var small = layout.Layout{StripeUnit: 64 << 10, StripeCount: 1, ObjectSize: 64 << 10}

// striped has three objects per set and a 64 KiB stripe unit.
var striped = layout.Layout{StripeUnit: 64 << 10, StripeCount: 3, ObjectSize: 256 << 10}

func randomData(seed uint64, n int) []byte { return test.RandomData(seed, n) }

// writeFile stores data as a file of layout l named by names, the way a
// striping client would: extent by extent.
func writeFile(t testing.TB, objs store.Objects, l layout.Layout, names layout.Namer, off uint64, data []byte) {
	t.Helper()
	for ext := range l.Extents(off, uint64(len(data))) {
		at := ext.FileOff - off
		if err := objs.Write(names.ObjectName(ext.ObjectNo), data[at:at+ext.Length], ext.ObjectOff); err != nil {
			t.Fatal(err)
		}
	}
}

// readFile reads [off, off+n) of a file independently of the engine:
// missing objects and bytes past an object's end read as zeros.
func readFile(t testing.TB, objs store.Objects, l layout.Layout, names layout.Namer, off, n uint64) []byte {
	t.Helper()
	out := make([]byte, n)
	for ext := range l.Extents(off, n) {
		at := ext.FileOff - off
		_, err := objs.Read(names.ObjectName(ext.ObjectNo), out[at:at+ext.Length], ext.ObjectOff)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
	}
	return out
}

func assertEqual(t testing.TB, what string, got, want []byte) {
	t.Helper()
	test.Equal(t, what, got, want)
}

// counting wraps Objects to count copy-froms and track how many are in
// flight at once: submitted and not yet complete, as the window counts
// them (a completed copy leaves the window before it is collected).
type counting struct {
	store.Objects
	submits     atomic.Int64
	inFlight    atomic.Int64
	maxInFlight atomic.Int64

	mu   sync.Mutex
	hold int64         // completions wait until this many are in flight at once
	full chan struct{} // closed when they are; nil when nothing is held
}

// holdUntil holds every completion back until n copy-froms have been in
// flight at once, so that a window of n is reached however slowly the
// engine submits (under -race on a loaded machine, a fake's 1 ms copy can
// complete before the window's last is submitted).
func (c *counting) holdUntil(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hold, c.full = int64(n), make(chan struct{})
}

// release lets the held completions go.
func (c *counting) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.full != nil {
		close(c.full)
		c.full = nil
	}
}

func (c *counting) Submit(dstOid string, src store.Location, o store.CopyOptions) (store.Pending, error) {
	n := c.inFlight.Add(1)
	for {
		m := c.maxInFlight.Load()
		if n <= m || c.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	c.submits.Add(1)
	c.mu.Lock()
	wait := c.full
	if wait != nil && n >= c.hold {
		close(wait)
		c.full = nil
	}
	c.mu.Unlock()
	p, err := c.Objects.Submit(dstOid, src, o)
	if err != nil {
		c.inFlight.Add(-1)
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		<-p.Ready()
		if wait != nil {
			<-wait
		}
		c.inFlight.Add(-1)
		close(done)
	}()
	return &countedPending{Pending: p, ready: done}, nil
}

// countedPending is ready once counting has seen it complete, so that a
// window never runs ahead of what counting counts.
type countedPending struct {
	store.Pending
	ready chan struct{}
}

func (p *countedPending) Ready() <-chan struct{} { return p.ready }

// recorder is an Observer that counts what the engine reported.
type recorder struct {
	radoscp.NopObserver
	mu        sync.Mutex
	fallbacks int
	cutbacks  int
	progress  uint64
	copies    int
	failures  int
}

func (r *recorder) Fallback() { r.mu.Lock(); r.fallbacks++; r.mu.Unlock() }
func (r *recorder) CutBack()  { r.mu.Lock(); r.cutbacks++; r.mu.Unlock() }
func (r *recorder) Progress(n uint64) {
	r.mu.Lock()
	r.progress += n
	r.mu.Unlock()
}
func (r *recorder) CopyDone(_ time.Duration, _ uint64, err error) {
	r.mu.Lock()
	r.copies++
	if err != nil {
		r.failures++
	}
	r.mu.Unlock()
}

func writeTemp(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func readTemp(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
