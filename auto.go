package radoscp

import (
	"context"
	"time"

	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/window"
)

// autoStart is the first width of an automatic window (capped by the
// maximum): twice the fixed default. A copy of a few dozen objects is over
// before AIMD has learnt much, and one round fewer of slow start matters
// more to it than the risk of starting wide, which the first congested
// round halves.
const autoStart = 2 * window.DefaultWidth

// autoWindow adapts one copy's window with AIMD (window.NewSlowStartAIMD)
// from the latency of each completed operation: copy-from latency as
// librados measured it, start to end for client read-and-writes. A round
// closes when AIMD says it is due (as many completions as the width, over
// at least their mean latency: about one round trip); its clock starts
// after the last operation AIMD ignores after a cut or a probe. It lives
// across the phases of one copy and runs on the dispatcher's goroutine
// only.
type autoWindow struct {
	aimd    *window.AIMD
	obs     Observer
	pending []store.Pending // operation i's completion, at i % len
	from    time.Time       // when the current round opened
	peak    int
}

func newAutoWindow(maxWidth int, obs Observer) *autoWindow {
	a := window.NewSlowStartAIMD(autoStart, maxWidth)
	// Up to Lookahead windows of operations are submitted and not yet
	// collected at once.
	slots := window.Lookahead * a.Max()
	return &autoWindow{aimd: a, obs: obs, pending: make([]store.Pending, slots), peak: a.Width()}
}

// run is window.RunAdaptive, feeding every completion to the AIMD. size
// gives the bytes operation i carries.
func (w *autoWindow) run(ctx context.Context, n uint64, size func(i uint64) uint64, submit func(context.Context, uint64) (store.Pending, error), done func(uint64, error)) window.Result {
	slots := uint64(len(w.pending))
	w.from = time.Now()
	sub := func(ctx context.Context, i uint64) (window.Pending, error) {
		p, err := submit(ctx, i)
		if err != nil {
			return nil, err
		}
		w.pending[i%slots] = p
		w.aimd.Submitted()
		return p, nil
	}
	fin := func(i uint64, err error) {
		done(i, err)
		p := w.pending[i%slots]
		w.pending[i%slots] = nil
		if err != nil {
			return
		}
		counted := w.aimd.Observe(p.Latency(), int64(size(i)))
		now := time.Now()
		if !counted {
			w.from = now
			return
		}
		if !w.aimd.Due(now.Sub(w.from)) {
			return
		}
		before := w.aimd.Width()
		if next := w.aimd.Next(now.Sub(w.from)); next != before {
			w.peak = max(w.peak, next)
			w.obs.Window(next)
		}
		w.from = now
	}
	return window.RunAdaptive(ctx, n, w.aimd, sub, fin)
}
