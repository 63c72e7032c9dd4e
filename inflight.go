package radoscp

import (
	"context"
	"sync/atomic"

	"golang.org/x/sync/semaphore"

	"github.com/radoscp/radoscp/store"
)

// inFlightLimit bounds the copy-froms in flight across every copy of an
// engine. A copy-from holds one of its OSD's admission places
// (osd_client_message_cap) until it has read its source, and that read,
// when the source is on the same OSD, needs a place too: with every place
// held by copy-froms the OSD admits nothing, from any client, until its
// limit is raised or it restarts (docs/benchmarks.md). One copy's window
// stays within window.MaxInFlight, but a tree copy runs many copies at
// once, each with its window, and a file of small objects has as many
// copy-froms as a large one. So every copy-from takes a token from one
// budget and gives it back when it completes (its Ready closes: the
// window's watch calls placed.Completed), not when the window collects
// it: the bound is on the copy-froms at the OSDs, whatever the files,
// windows and layouts. Client read-and-writes hold no OSD place while
// they wait on another and take no token.
type inFlightLimit struct {
	sem     *semaphore.Weighted
	n, peak atomic.Int64
}

func newInFlightLimit(n int) *inFlightLimit {
	return &inFlightLimit{sem: semaphore.NewWeighted(int64(n))}
}

// acquire waits for a token, or returns ctx's error.
func (l *inFlightLimit) acquire(ctx context.Context) error {
	if err := l.sem.Acquire(ctx, 1); err != nil {
		return err
	}
	n := l.n.Add(1)
	for p := l.peak.Load(); n > p && !l.peak.CompareAndSwap(p, n); p = l.peak.Load() {
	}
	return nil
}

func (l *inFlightLimit) release() {
	l.n.Add(-1)
	l.sem.Release(1)
}

// placed is a copy-from holding one of the engine's in-flight places. The
// window calls Completed as soon as it completes (window.Completer).
type placed struct {
	store.Pending
	limit *inFlightLimit
}

// Completed gives the place back.
func (p placed) Completed() { p.limit.release() }

// PeakInFlight is the most copy-froms the engine has had in flight at
// once, over all its copies: at most window.MaxInFlight.
func (e *Engine) PeakInFlight() int { return int(e.limit.peak.Load()) }

// SetMaxInFlight bounds the engine's copy-froms in flight at n instead of
// window.MaxInFlight (n < 1 means 1): for OSDs whose
// osd_client_message_cap was raised, or to model a copier with no bound
// (radoscp-bench's "all at once"). Call it before the engine's first copy.
func (e *Engine) SetMaxInFlight(n int) { e.limit = newInFlightLimit(max(n, 1)) }
