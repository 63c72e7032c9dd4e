package window

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func errAt(i uint64) error { return fmt.Errorf("operation %d failed", i) }

func TestRunSuccess(t *testing.T) {
	const n = 50
	for _, w := range []int{1, 2, 3, 16, 50} {
		t.Run(fmt.Sprint("width=", w), func(t *testing.T) {
			f := &fake{t: t, latency: jitter}
			res := Run(context.Background(), n, w, f.submit, f.done)
			f.check(res, w)
			want := Result{Done: n, Submitted: n, Width: w}
			if res != want {
				t.Errorf("Run = %+v, want %+v", res, want)
			}
			// The window fills before the first Wait, so it is used in full.
			if f.maxInflight != w {
				t.Errorf("max in flight %d, want %d", f.maxInflight, w)
			}
		})
	}
}

func TestRunWidthClamp(t *testing.T) {
	for _, w := range []int{0, -1, -1 << 30} {
		f := &fake{t: t, latency: jitter}
		res := Run(context.Background(), 10, w, f.submit, f.done)
		f.check(res, 1)
		if res.Width != 1 || res.Done != 10 || res.Err != nil {
			t.Errorf("width %d: Run = %+v", w, res)
		}
	}
}

func TestRunWidthAboveN(t *testing.T) {
	f := &fake{t: t, latency: jitter}
	res := Run(context.Background(), 10, 1000, f.submit, f.done)
	f.check(res, 10)
	if want := (Result{Done: 10, Submitted: 10, Width: 1000}); res != want {
		t.Errorf("Run = %+v, want %+v", res, want)
	}
}

func TestRunZero(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	submit := func(context.Context, uint64) (Pending, error) {
		t.Fatal("submit called for n = 0")
		return nil, nil
	}
	res := Run(ctx, 0, 4, submit, func(uint64, error) { t.Fatal("done called for n = 0") })
	if want := (Result{Width: 4}); res != want {
		t.Errorf("Run = %+v, want %+v", res, want)
	}
}

func TestRunNilDone(t *testing.T) {
	f := &fake{t: t, latency: jitter}
	res := Run(context.Background(), 20, 4, f.submit, nil)
	if res.Done != 20 || res.Err != nil || f.inflight != 0 {
		t.Errorf("Run = %+v, %d in flight", res, f.inflight)
	}
}

func TestRunWaitFailure(t *testing.T) {
	const n, w = 40, 8
	for _, tc := range []struct {
		name string
		fail []uint64
	}{
		{"first", []uint64{0}},
		{"middle", []uint64{17}},
		{"last", []uint64{n - 1}},
		{"several", []uint64{30, 12, 13, 39}},
		{"every", func() (all []uint64) {
			for i := range uint64(n) {
				all = append(all, i)
			}
			return all
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{t: t, latency: jitter, waitErr: map[uint64]error{}}
			first := uint64(n)
			for _, i := range tc.fail {
				f.waitErr[i] = errAt(i)
				first = min(first, i)
			}
			res := Run(context.Background(), n, w, f.submit, f.done)
			f.check(res, w)
			if res.Done != first || res.Err != f.waitErr[first] || res.Submission {
				t.Errorf("Run = %+v, want failure of operation %d from Wait", res, first)
			}
			if res.Submitted <= first || res.Submitted > min(n, first+w) {
				t.Errorf("Submitted = %d, want in (%d, %d]", res.Submitted, first, min(n, first+w))
			}
		})
	}
}

func TestRunSubmitFailure(t *testing.T) {
	for _, k := range []uint64{0, 5, 39} {
		errK := errAt(k)
		f := &fake{t: t, latency: jitter, submitErr: map[uint64]error{k: errK}}
		res := Run(context.Background(), 40, 8, f.submit, f.done)
		f.check(res, 8)
		want := Result{Done: k, Submitted: k, Err: errK, Submission: true, Width: 8}
		if res != want {
			t.Errorf("Run = %+v, want %+v", res, want)
		}
	}
}

// An I/O error on an operation already in flight must not be masked by a
// later submission failure, even when the submission failure is seen first.
func TestRunWaitFailureBeatsLaterSubmitFailure(t *testing.T) {
	const j, k = 2, 5
	f := &fake{
		t:         t,
		latency:   jitter,
		waitErr:   map[uint64]error{j: errAt(j)},
		submitErr: map[uint64]error{k: errAt(k)},
	}
	// Width 10 fills [0, k) and hits the Submit failure before any Wait.
	res := Run(context.Background(), 20, 10, f.submit, f.done)
	f.check(res, 10)
	want := Result{Done: j, Submitted: k, Err: f.waitErr[j], Width: 10}
	if res != want {
		t.Errorf("Run = %+v, want %+v", res, want)
	}
	if f.next != k+1 {
		t.Errorf("last Submit was for %d, want %d", f.next-1, k)
	}
}

func TestRunCancelBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := &fake{t: t}
	res := Run(ctx, 10, 4, f.submit, f.done)
	f.check(res, 4)
	if res.Done != 0 || res.Submitted != 0 || !res.Submission || !errors.Is(res.Err, context.Canceled) {
		t.Errorf("Run = %+v", res)
	}
}

func TestRunCancelMidRun(t *testing.T) {
	const c = 13
	cause := errors.New("operator interrupt")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	f := &fake{t: t, latency: jitter}
	f.onSubmit = func(i uint64) {
		if i == c {
			cancel(cause)
		}
	}
	res := Run(ctx, 100, 4, f.submit, f.done)
	f.check(res, 4)
	if res.Done != c+1 || res.Submitted != c+1 || !res.Submission {
		t.Errorf("Run = %+v, want Done = Submitted = %d from ctx", res, c+1)
	}
	if !errors.Is(res.Err, context.Canceled) || !errors.Is(res.Err, cause) {
		t.Errorf("Err = %v, want it to wrap context.Canceled and the cause", res.Err)
	}
}

// Cancellation while every slot is busy must not make Run return before
// the in-flight operations complete, and a Wait error among them still
// beats the cancellation.
func TestRunCancelDrains(t *testing.T) {
	for _, failing := range []bool{false, true} {
		t.Run(fmt.Sprint("failing=", failing), func(t *testing.T) {
			const w = 8
			ctx, cancel := context.WithCancel(context.Background())
			f := &fake{t: t, hold: make(chan struct{})}
			if failing {
				f.waitErr = map[uint64]error{3: errAt(3)}
			}
			full := make(chan struct{})
			f.onSubmit = func(i uint64) {
				if i == w-1 {
					close(full)
				}
			}
			ret := make(chan Result)
			go func() { ret <- Run(ctx, 1000, w, f.submit, f.done) }()
			<-full
			cancel()
			select {
			case res := <-ret:
				t.Fatalf("Run returned %+v with %d operations in flight", res, w)
			case <-time.After(20 * time.Millisecond):
			}
			close(f.hold)
			res := <-ret
			f.check(res, w)
			if res.Submitted != w {
				t.Errorf("Submitted = %d, want %d", res.Submitted, w)
			}
			switch {
			case failing && (res.Done != 3 || res.Err != f.waitErr[3] || res.Submission):
				t.Errorf("Run = %+v, want operation 3's Wait error", res)
			case !failing && (res.Done != w || !res.Submission || !errors.Is(res.Err, context.Canceled)):
				t.Errorf("Run = %+v, want cancellation at %d", res, w)
			}
		})
	}
}

// gateOp completes when its channel is closed, and says so.
type gateOp chan struct{}

func (g gateOp) Wait() error            { <-g; return nil }
func (g gateOp) Ready() <-chan struct{} { return g }

// With Readier operations a slow head holds back nothing: operations after
// it complete, leave the window, and new ones are submitted, up to
// Lookahead windows past the head. Here operation 0 completes only once
// the last operation that lookahead allows has been submitted; a
// dispatcher that waited for the head first would never get there. The
// others complete on goroutines of their own, so several are in flight at
// once: never more than the width, and never more than Lookahead widths
// submitted and not handed back, a bound the slow head makes Run reach.
func TestReadierSlowHead(t *testing.T) {
	const width = 4
	const ahead = width * Lookahead
	last := uint64(ahead - 1)
	head := make(gateOp)
	var (
		mu                         sync.Mutex
		running, maxRunning        int // submitted and not complete
		submitted, handedBack      int
		maxOutstanding, headBehind int // outstanding when last was submitted
	)
	finish := func(g gateOp) {
		mu.Lock()
		running--
		mu.Unlock()
		close(g)
	}
	submit := func(_ context.Context, i uint64) (Pending, error) {
		mu.Lock()
		running++
		submitted++
		maxRunning = max(maxRunning, running)
		maxOutstanding = max(maxOutstanding, submitted-handedBack)
		if i == last {
			headBehind = submitted - handedBack
		}
		mu.Unlock()
		if i == 0 {
			return head, nil
		}
		if i == last {
			finish(head)
		}
		g := make(gateOp)
		go finish(g)
		return g, nil
	}
	var order []uint64
	result := make(chan Result, 1)
	go func() {
		result <- Run(context.Background(), 3*ahead, width, submit, func(i uint64, err error) {
			order = append(order, i)
			mu.Lock()
			handedBack++
			mu.Unlock()
		})
	}()
	select {
	case res := <-result:
		if res.Err != nil || res.Done != 3*ahead {
			t.Fatalf("Run = %+v", res)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run waited for the slow head before submitting past the window")
	}
	for k, i := range order {
		if i != uint64(k) {
			t.Fatalf("done order %v", order)
		}
	}
	if maxRunning > width {
		t.Errorf("%d operations in flight at once, width %d", maxRunning, width)
	}
	if maxRunning < 2 {
		t.Errorf("at most %d operation in flight: the test ran nothing alongside the slow head", maxRunning)
	}
	if headBehind != ahead {
		t.Errorf("%d operations outstanding when the last one lookahead allows was submitted, want %d (the head still held)", headBehind, ahead)
	}
	if maxOutstanding != ahead {
		t.Errorf("at most %d operations submitted and not handed back, want exactly %d (Lookahead widths)", maxOutstanding, ahead)
	}
}

// A submission held back (by a rate limit, say) does not hold back the
// hand-back of operations already complete: each operation here is
// complete when submit returns it, and every submission after the first
// finds the one before it handed back, whatever the width. A dispatcher
// that handed back only when the window filled would call done for the
// first operation after the width-th submission, so a throttled copy's
// checkpoints would lag a whole window behind its copies.
func TestRunHandsBackBeforeASlowSubmit(t *testing.T) {
	const n, width = 40, 16
	var handedBack uint64
	var lag []uint64
	submit := func(_ context.Context, i uint64) (Pending, error) {
		if i > handedBack {
			lag = append(lag, i-handedBack)
		}
		g := make(gateOp)
		close(g)
		return g, nil
	}
	res := Run(context.Background(), n, width, submit, func(i uint64, err error) { handedBack = i + 1 })
	if res.Err != nil || res.Done != n {
		t.Fatalf("Run = %+v", res)
	}
	if len(lag) > 0 {
		t.Fatalf("submissions found %v completed operations not yet handed back", lag)
	}
}

func TestDefaultMaxWidthFor(t *testing.T) {
	for _, tc := range []struct {
		n    uint64
		want int
	}{
		{0, 64}, {1, 64}, {256, 64}, {259, 64}, {260, 65}, {508, 127}, {512, 128}, {4096, 128}, {1 << 40, 128},
	} {
		if got := DefaultMaxWidthFor(tc.n); got != tc.want {
			t.Errorf("DefaultMaxWidthFor(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

// A Completer's Completed is called once per operation started, after it
// completed and before Run returns, whichever way the run ends: the
// caller gives back a resource there (radoscp's in-flight places), and a
// missed or doubled call would leak it or overdraw it. check asserts it.
func TestCompleterCalledOnce(t *testing.T) {
	const n, w = 60, 8
	for _, tc := range []struct {
		name      string
		waitErr   map[uint64]error
		submitErr map[uint64]error
		cancelAt  uint64 // n: never
		adaptive  bool
	}{
		{name: "all", cancelAt: n},
		{name: "wait-failure", waitErr: map[uint64]error{17: errAt(17)}, cancelAt: n},
		{name: "submit-failure", submitErr: map[uint64]error{23: errAt(23)}, cancelAt: n},
		{name: "cancel", cancelAt: 30},
		{name: "adaptive", cancelAt: n, adaptive: true},
		{name: "adaptive-wait-failure", waitErr: map[uint64]error{40: errAt(40)}, cancelAt: n, adaptive: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{t: t, latency: jitter, waitErr: tc.waitErr, submitErr: tc.submitErr, readier: true, completer: true}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			f.onSubmit = func(i uint64) {
				if i == tc.cancelAt {
					cancel()
				}
			}
			var res Result
			if tc.adaptive {
				res = RunAdaptive(ctx, n, &stepper{width: w, max: w}, f.submit, f.done)
			} else {
				res = Run(ctx, n, w, f.submit, f.done)
			}
			f.check(res, w)
			if f.submitted == 0 || (tc.name == "all" && res.Done != n) {
				t.Fatalf("Run = %+v after %d submissions: the case did not run", res, f.submitted)
			}
		})
	}
}
