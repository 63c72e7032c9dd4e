package window

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fake is an in-memory asynchronous backend: each submitted operation
// completes on a timer after latency(i), so completions arrive out of
// order, and fails in Wait or in Submit at chosen indices.
type fake struct {
	t         testing.TB
	latency   func(i uint64) time.Duration // nil: complete at once
	waitErr   map[uint64]error
	submitErr map[uint64]error
	hold      chan struct{}  // if set, no operation completes before it is closed
	onSubmit  func(i uint64) // runs after operation i started
	readier   bool           // operations implement Readier
	completer bool           // and Completer (needs readier)

	mu          sync.Mutex
	next        uint64 // index the next Submit must carry
	inflight    int    // submitted, not yet waited on
	maxInflight int
	running     int // submitted, not yet complete
	maxRunning  int
	submitted   int
	completed   atomic.Int64
	waits       []uint64 // Wait order
	dones       []uint64 // done-callback order
	doneErrs    []error
	ops         []*fakeOp
}

type fakeOp struct {
	f      *fake
	i      uint64
	err    error
	ch     chan struct{}
	waited atomic.Bool
	// completions counts Completed calls; early ones came before the
	// operation had completed.
	completions, early atomic.Int32
}

func (o *fakeOp) Wait() error {
	if o.waited.Swap(true) {
		o.f.t.Errorf("operation %d waited on twice", o.i)
	}
	<-o.ch
	o.f.mu.Lock()
	o.f.inflight--
	o.f.waits = append(o.f.waits, o.i)
	o.f.mu.Unlock()
	return o.err
}

func (f *fake) submit(ctx context.Context, i uint64) (Pending, error) {
	if ctx == nil {
		f.t.Errorf("submit %d: nil ctx", i)
	}
	f.mu.Lock()
	if i != f.next {
		f.t.Errorf("submit %d, want %d", i, f.next)
	}
	f.next = i + 1
	if err := f.submitErr[i]; err != nil {
		f.mu.Unlock()
		return nil, err
	}
	f.inflight++
	f.maxInflight = max(f.maxInflight, f.inflight)
	f.running++
	f.maxRunning = max(f.maxRunning, f.running)
	f.submitted++
	o := &fakeOp{f: f, i: i, err: f.waitErr[i], ch: make(chan struct{})}
	f.ops = append(f.ops, o)
	f.mu.Unlock()

	var d time.Duration
	if f.latency != nil {
		d = f.latency(i)
	}
	complete := func() {
		if f.hold != nil {
			<-f.hold
		}
		f.mu.Lock()
		f.running--
		f.mu.Unlock()
		f.completed.Add(1)
		close(o.ch)
	}
	switch {
	case f.hold != nil:
		go complete()
	case d > 0:
		time.AfterFunc(d, complete)
	default:
		complete()
	}
	if f.onSubmit != nil {
		f.onSubmit(i)
	}
	switch {
	case f.completer:
		return completerOp{readyOp{o}}, nil
	case f.readier:
		return readyOp{o}, nil
	}
	return o, nil
}

// readyOp is a fakeOp that tells when it has completed.
type readyOp struct{ *fakeOp }

func (o readyOp) Ready() <-chan struct{} { return o.ch }

// completerOp is a readyOp that counts its Completed calls.
type completerOp struct{ readyOp }

func (o completerOp) Completed() {
	select {
	case <-o.ch:
	default:
		o.early.Add(1)
	}
	o.completions.Add(1)
}

func (f *fake) done(i uint64, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dones = append(f.dones, i)
	f.doneErrs = append(f.doneErrs, err)
}

// check verifies what must hold after any Run: nothing left un-waited,
// Wait and done both in submission order with the operations' own errors,
// and the window never wider than width.
func (f *fake) check(res Result, width int) {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inflight != 0 {
		f.t.Errorf("%d operations left in flight", f.inflight)
	}
	if got := int(f.completed.Load()); got != f.submitted {
		f.t.Errorf("%d operations completed, %d submitted", got, f.submitted)
	}
	if uint64(f.submitted) != res.Submitted {
		f.t.Errorf("Submitted = %d, fake saw %d", res.Submitted, f.submitted)
	}
	if f.maxRunning > width {
		f.t.Errorf("max running %d > width %d", f.maxRunning, width)
	}
	if ahead := width * f.lookahead(); f.maxInflight > ahead {
		f.t.Errorf("max submitted and not handed back %d > %d", f.maxInflight, ahead)
	}
	if len(f.waits) != f.submitted || len(f.dones) != f.submitted {
		f.t.Fatalf("%d waits, %d dones, %d submitted", len(f.waits), len(f.dones), f.submitted)
	}
	for _, o := range f.ops {
		if n := o.completions.Load(); f.completer && n != 1 {
			f.t.Errorf("operation %d: Completed called %d times by the time Run returned, want once", o.i, n)
		}
		if o.early.Load() != 0 {
			f.t.Errorf("operation %d: Completed called before it completed", o.i)
		}
	}
	for k := range f.waits {
		if f.waits[k] != uint64(k) || f.dones[k] != uint64(k) {
			f.t.Fatalf("wait/done #%d on %d/%d", k, f.waits[k], f.dones[k])
		}
		if f.doneErrs[k] != f.waitErr[uint64(k)] {
			f.t.Errorf("done(%d) err %v, want %v", k, f.doneErrs[k], f.waitErr[uint64(k)])
		}
	}
}

// jitter gives operation i a latency of up to 200µs so that completions
// overtake each other.
func jitter(i uint64) time.Duration {
	return time.Duration((i*7919)%200) * time.Microsecond
}

// lookahead is how many widths may be submitted and not yet handed back.
func (f *fake) lookahead() int {
	if f.readier {
		return Lookahead
	}
	return 1
}
