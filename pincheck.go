package radoscp

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/radoscp/radoscp/store"
)

// recheck stats the early objects of a pinned copy once more, after the
// copy's instant T (see pins): each must still be as pinned.
type recheck struct {
	done chan struct{}

	mu  sync.Mutex
	err error  // the change found at the lowest object, at
	at  uint64 // an object number
}

// startRecheck re-stats objects [p.first, end), every one of them pinned,
// p.width at a time. The caller knows T has passed: every pin it depends
// on has returned.
func (p *pins) startRecheck(end uint64) *recheck {
	r := &recheck{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		if end <= p.first {
			return
		}
		statMany(p.src.Objects, end-p.first, p.objectName, p.width, func() bool { return false }, func(k uint64, st store.ObjectStat, err error) {
			obj := p.first + k
			if err := p.still(obj, st, err); err != nil {
				r.mu.Lock()
				if r.err == nil || obj < r.at {
					r.err, r.at = err, obj
				}
				r.mu.Unlock()
			}
		})
	}()
	return r
}

// still checks, from its stat st (or err), that object obj is as pinned:
// at its pinned version, or absent if it was.
func (p *pins) still(obj uint64, st store.ObjectStat, err error) error {
	ref, pinned := p.src.Objects.Ref(p.src.Names.ObjectName(obj)), p.version(obj)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if pinned != 0 {
			return recheckErr(changed(ref, pinned, "absent"))
		}
		return nil
	case err != nil:
		return fmt.Errorf("re-check source version: %w", err)
	case st.Version != pinned:
		return recheckErr(changed(ref, pinned, fmt.Sprintf("version %d", st.Version)))
	}
	return nil
}

func recheckErr(err error) error {
	return fmt.Errorf("%w (found re-checking an object copied before the last pin returned)", err)
}

// failed is the change found so far, if any, without waiting.
func (r *recheck) failed() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// wait waits for every re-check and returns the change at the lowest
// object, if any.
func (r *recheck) wait() (uint64, error) {
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.at, r.err
}

// passed reports whether every re-check is in and found nothing.
func (r *recheck) passed() bool {
	select {
	case <-r.done:
		return r.failed() == nil
	default:
		return false
	}
}

// awaitPins holds operation i, o, until the pins of the source objects it
// reads are known, except a copy-from of the first window (c.head): its
// pin is checked when it is collected instead (see pins). It notes whether
// the operation is early: submitted before every pin had returned. The
// first operation submitted after that starts the re-check of the early
// ones; once the re-check has found a change, no more operations start.
func (c *copier) awaitPins(ctx context.Context, i uint64, o op) error {
	if c.pins == nil {
		return nil
	}
	end, wait := o.srcObj+1, o.kind != opCopyFrom || i >= c.head
	switch {
	case c.serial:
		// A copy into existing data cannot cut back what it wrote past
		// a failure, so it has no early objects, which are found
		// changed only after later ones were copied: its first
		// operation waits for every pin.
		end, wait = c.pins.first+uint64(len(c.pins.versions)), true
	case o.kind == opExtentRW:
		end = objectsEnd(c.src.Layout, o.srcOff+o.length)
	}
	if wait {
		if err := c.pins.await(ctx, end); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("window: stopped before operation %d: %w", i, err)
			}
			return err
		}
	}
	if !c.pins.all.Load() {
		c.earlyEnd = max(c.earlyEnd, end)
		return nil
	}
	if c.recheck == nil {
		c.e.log.Debug("pins in", "objects", len(c.pins.versions), "early", max(c.earlyEnd, c.pins.first)-c.pins.first)
		c.recheck = c.pins.startRecheck(c.earlyEnd)
	}
	return c.recheck.failed()
}

// pinsSettled reports whether what the copy has done so far may be
// recorded: the early objects were re-checked and found as pinned.
func (c *copier) pinsSettled() bool {
	return c.pins == nil || c.recheck != nil && c.recheck.passed()
}

// settlePins ends pinning once the copy's operations are done: it stops
// the pins still running and re-checks the early objects of the prefix
// [srcOff, srcOff+done), if that did not start during the copy. A change
// found in the prefix cuts it back to the start of the changed object's
// set, and becomes the copy's error, the first in offset order.
func (c *copier) settlePins(srcOff, done uint64, err error) (uint64, error) {
	c.pins.halt()
	r := c.recheck
	if r == nil {
		// The pins of the prefix have all returned: its instant has
		// passed.
		r = c.pins.startRecheck(min(c.earlyEnd, objectsEnd(c.src.Layout, srcOff+done)))
	}
	at, rerr := r.wait()
	if rerr == nil {
		return done, err
	}
	l := c.src.Layout
	cut := at / l.StripeCount * l.SetSize()
	if cut >= srcOff+done {
		return done, err
	}
	done = max(cut, srcOff) - srcOff
	if err == nil || errors.Is(err, rerr) {
		return done, rerr
	}
	return done, errors.Join(rerr, err)
}
