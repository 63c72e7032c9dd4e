package window

import (
	"context"
	"fmt"
)

// Pending is one submitted asynchronous operation.
type Pending interface {
	// Wait blocks until the operation completes and returns its error.
	// The dispatcher calls it exactly once per submitted operation, in
	// submission order.
	Wait() error
}

// Readier is implemented by a Pending that can tell, without being waited
// on, that it has completed: Ready's channel is closed then. Run counts
// such an operation out of flight as soon as it completes rather than when
// its turn to be waited on comes, so one slow operation at the head does
// not hold back new submissions while those after it finish. Results are
// still handed back in order; submissions may run ahead of the oldest
// unfinished operation by up to Lookahead times the width.
type Readier interface {
	Pending
	Ready() <-chan struct{}
}

// Completer is a Readier with something to do as soon as it completes,
// before its turn to be waited on comes (radoscp gives back the in-flight
// place its copy-from held). Run calls Completed exactly once, from the
// goroutine that watches Ready, and before Run returns.
type Completer interface {
	Readier
	Completed()
}

// DefaultWidth is how many operations a copy keeps in flight unless told
// otherwise. DefaultMaxWidth and MaxInFlight bound DefaultMaxWidthFor.
const (
	DefaultWidth    = 16
	DefaultMaxWidth = 64
	// MaxInFlight bounds every window radoscp's commands accept, and the
	// copy-froms an engine has in flight over all its copies: half of
	// the client operations an OSD admits at once by default
	// (osd_client_message_cap, 256). A copy-from holds one of them until
	// it has read its source, and that read, when the source is on the
	// same OSD, must be admitted too: with every place held by
	// copy-froms, the OSD admits none of their reads, and nothing from any
	// client, until its limit is raised or it restarts (seen on the test
	// cluster with all of 4,096 copy-froms sent at once: docs/benchmarks.md).
	// At half, one copy's copy-froms, even all on one OSD, leave room for
	// their reads.
	MaxInFlight = 128
)

// DefaultMaxWidthFor is how wide an adaptive window over n operations may
// grow unless told otherwise: a quarter of them, so that even a copy that
// is all queueing keeps four rounds to adapt in, and no less than
// DefaultMaxWidth nor more than MaxInFlight.
func DefaultMaxWidthFor(n uint64) int {
	return int(min(max(n/4, DefaultMaxWidth), MaxInFlight))
}

// Lookahead bounds, as a multiple of the width, how many operations may be
// submitted and not yet handed back: completed ones waiting behind a slow
// one, and those in flight.
const Lookahead = 4

// Submit starts operation i (0-based, called with i = 0,1,2,... in order).
// A non-nil error means the operation was not started (a submission
// failure); the returned Pending is then ignored. On success the Pending
// must be non-nil.
type Submit func(ctx context.Context, i uint64) (Pending, error)

// Result is the outcome of Run or RunAdaptive.
type Result struct {
	Done      uint64 // operations [0, Done) all succeeded: the contiguous prefix
	Submitted uint64 // operations [0, Submitted) were started, and all of them were waited on before Run returned; those in [Done+1, Submitted) may have had effects past the prefix
	Err       error  // nil when all n succeeded; otherwise the error of operation Done
	// Submission reports that Err came from Submit or ctx (operation Done
	// was never started), not from Wait.
	Submission bool
	// Width is the effective width used: for Run, width clamped to at
	// least 1; for RunAdaptive, the in-flight bound Limiter.Max, clamped
	// likewise.
	Width int
}

// Run performs operations [0, n), keeping up to width of them in flight
// (submitted and not yet complete: waited on, or Ready for a Readier), and
// waits on them oldest first, so results reach done, and failures are
// found, in operation order. A Readier that is complete when it is the
// oldest is handed back before the next submission, so a slow submit
// (one held back by a rate limit) does not delay done. width is read once; width <= 0 means 1, and
// width > n is allowed. Memory is O(min(width, n)) whatever n is.
//
// done, which may be nil, is called on Run's goroutine for every waited
// operation, in order, with its error, whether or not an earlier one
// failed; it is meant for progress and metrics.
//
// On success, Run returns Done == Submitted == n and a nil Err.
//
// On failure, Run stops submitting at the first failure it sees (a Submit
// or Wait error) and leaves operations [Submitted, n) unstarted. Result.Err
// is the error of the earliest failing operation, returned as is, and
// Result.Done is its index: a Wait error on an operation submitted before a
// later Submit failure is the one reported, and the later operations
// already in flight may have had effects past Done.
//
// If ctx is done before operation k is submitted and nothing earlier
// failed, Run returns Done == Submitted == k, Submission set and an Err
// that wraps ctx.Err() (and context.Cause(ctx) when it differs).
//
// Run never abandons an operation in flight: whatever fails and whenever
// ctx is cancelled, every submitted operation has been waited on before Run
// returns, because the asynchronous I/O it stands for cannot be cancelled
// and the caller releases the buffers it uses as soon as Run returns. A
// panic in submit, Wait or done propagates without draining.
func Run(ctx context.Context, n uint64, width int, submit Submit, done func(i uint64, err error)) Result {
	return run(ctx, n, max(width, 1), nil, submit, done)
}

// run is Run with an optional ctrl that lowers the in-flight limit below
// size between submissions.
func run(ctx context.Context, n uint64, size int, ctrl Limiter, submit Submit, done func(uint64, error)) Result {
	res := Result{Width: size}
	if n == 0 {
		return res
	}
	ring := make([]Pending, min(uint64(size)*Lookahead, n))
	// A Readier's completion comes back as a token on completed, sent by a
	// goroutine of its own. Tokens outstanding never exceed the operations
	// in flight, so never size: sends never block.
	completed := make(chan struct{}, size)
	var (
		head, tail uint64 // operations [head, tail) are submitted and not handed back
		hs, ts     int    // their ring slots, kept apart from head and tail to avoid 64-bit division
		inflight   int    // of those, the ones not known to be complete
		tokens     int    // Readiers whose completion token is still to come
		subErr     error  // why operation tail was not submitted
		waitErr    error  // first Wait error, of operation waitAt
		waitAt     uint64
	)
	limit := size
	for {
		for tail < n && subErr == nil && waitErr == nil && int(tail-head) < len(ring) {
			if ctrl != nil {
				limit = min(max(ctrl.Width(), 1), size)
			}
			if inflight >= limit || headReady(ring, hs, head, tail) {
				break
			}
			if err := ctx.Err(); err != nil {
				subErr = stopped(ctx, err, tail)
				break
			}
			p, err := submit(ctx, tail)
			if err != nil {
				subErr = err
				break
			}
			ring[ts] = p
			if ts++; ts == len(ring) {
				ts = 0
			}
			tail++
			inflight++
			if r, ok := p.(Readier); ok {
				tokens++
				go watch(r, completed)
			}
		}
		if head == tail {
			if tail < n && subErr == nil && waitErr == nil && tokens > 0 {
				// Everything submitted was handed back, so completed;
				// only the tokens saying so are still to come.
				<-completed
				tokens--
				inflight--
				continue
			}
			break
		}
		p := ring[hs]
		r, readier := p.(Readier)
		if readier {
			select {
			case <-completed:
				tokens--
				inflight--
				continue
			case <-r.Ready():
			}
		}
		err := p.Wait()
		if !readier {
			inflight--
		}
		ring[hs] = nil // let the caller's completion be collected
		if hs++; hs == len(ring) {
			hs = 0
		}
		if done != nil {
			done(head, err)
		}
		if err != nil && waitErr == nil {
			waitErr, waitAt = err, head
		}
		head++
	}
	for ; tokens > 0; tokens-- {
		<-completed
	}
	res.Submitted = tail
	switch {
	case waitErr != nil:
		// Submission stopped at or after waitAt, so any Submit or ctx
		// failure belongs to a later operation.
		res.Done, res.Err = waitAt, waitErr
	case subErr != nil:
		res.Done, res.Err, res.Submission = tail, subErr, true
	default:
		res.Done = n
	}
	return res
}

// watch sends a token on completed once r has completed, after
// Completed for a Completer.
func watch(r Readier, completed chan<- struct{}) {
	<-r.Ready()
	if c, ok := r.(Completer); ok {
		c.Completed()
	}
	completed <- struct{}{}
}

// headReady says whether the oldest operation not handed back is a
// Readier known to be complete. It is handed back before the next
// submission: a submission may block (a throttle holds it back), and
// the caller's checkpoints and progress must not wait for it.
func headReady(ring []Pending, hs int, head, tail uint64) bool {
	if head == tail {
		return false
	}
	r, ok := ring[hs].(Readier)
	if !ok {
		return false
	}
	select {
	case <-r.Ready():
		return true
	default:
		return false
	}
}

func stopped(ctx context.Context, err error, i uint64) error {
	if cause := context.Cause(ctx); cause != err {
		return fmt.Errorf("window: stopped before operation %d: %w: %w", i, err, cause)
	}
	return fmt.Errorf("window: stopped before operation %d: %w", i, err)
}
