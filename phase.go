package radoscp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/window"
)

// phaseResult is what one pass of the window achieved.
type phaseResult struct {
	bytes    uint64 // complete prefix
	reach    uint64 // end of what submitted operations may have written
	copyFrom bool   // the failure, if any, came from a copy-from
}

// phase plans [srcOff, srcOff+length) -> dstOff and runs it through the
// window once. It stops at the first failure.
func (c *copier) phase(ctx context.Context, srcOff, dstOff, length uint64, width int, chunk uint64) (phaseResult, error) {
	segs, err := layout.Plan(c.src.Layout, srcOff, c.dst.Layout(), dstOff, length)
	if err != nil {
		return phaseResult{}, err
	}
	pair := pairOf(c.src, TargetOf(c.dst))
	offload := c.e.Offload(pair.src, pair.dst)
	for _, s := range segs {
		if s.Kind != layout.Offload || !offload {
			c.res.Fallback = true
		}
	}
	if c.opts.OffloadOnly {
		if err := offloadOnly(segs, c.src.Layout, c.dst.Layout(), offload); err != nil {
			return phaseResult{}, err
		}
	}
	ops := newOpList(segs, c.src.Layout, chunk, func(obj uint64) bool {
		return offload && c.dst.Offloadable(obj)
	})

	var failed bool
	var progress uint64 = dstOff
	submit := func(ctx context.Context, i uint64) (store.Pending, error) {
		o := ops.at(i)
		if err := c.awaitPins(ctx, i, o); err != nil {
			return nil, err
		}
		if err := c.opts.Throttle.wait(ctx, o.length); err != nil {
			return nil, fmt.Errorf("window: stopped before operation %d: %w", i, err)
		}
		return c.startPlaced(ctx, i, o)
	}
	// done sees every operation in order, also those after a failure:
	// only those before the first failure count.
	done := func(i uint64, err error) {
		c.e.obs.InFlight(-1)
		if failed {
			return
		}
		if err != nil {
			failed = true
			return
		}
		o := ops.at(i)
		if o.kind == opCopyFrom {
			c.res.Objects++
		}
		if o.complete > progress {
			c.e.obs.Progress(o.complete - progress)
			progress = o.complete
			c.checkpoint(progress)
		}
	}
	var r window.Result
	if c.auto != nil {
		r = c.auto.run(ctx, ops.n, func(i uint64) uint64 { return ops.at(i).length }, submit, done)
	} else {
		r = window.Run(ctx, ops.n, width, func(ctx context.Context, i uint64) (window.Pending, error) {
			p, err := submit(ctx, i)
			if c.serial && err == nil {
				// Into existing data nothing may start before the
				// operation ahead is known to have succeeded: hidden
				// Ready, the window waits on it first.
				return waitOnly{p}, nil
			}
			return p, err
		}, done)
	}
	pr := phaseResult{bytes: progress - dstOff}
	if r.Submitted > 0 {
		pr.reach = ops.at(r.Submitted - 1).reach
	}
	if r.Err != nil && r.Done < ops.n {
		pr.copyFrom = ops.at(r.Done).kind == opCopyFrom
	}
	return pr, r.Err
}

// checkpointEvery is how often a copy in progress records its complete
// prefix in the destination, so that a killed copy resumes near where it
// stopped. A checkpoint is one metadata operation.
const checkpointEvery = time.Second

// checkpoint records eof if the last one is old enough. A failed
// checkpoint only makes a resume start earlier: it is logged, not fatal.
func (c *copier) checkpoint(eof uint64) {
	if c.serial || !c.pinsSettled() {
		return
	}
	now := c.clock.Now()
	if now.Sub(c.lastCheckpoint) < checkpointEvery {
		return
	}
	c.lastCheckpoint = now
	if err := c.dst.Checkpoint(eof); err != nil {
		c.e.log.Warn("checkpoint failed; a resume would start from the previous one", "eof", eof, "err", err)
		return
	}
	c.e.log.Debug("checkpoint", "eof", eof)
}

// ErrOffloadOnly is a copy refused by Options.OffloadOnly because some of
// its bytes cannot go by copy-from: refused before anything was written
// when it is the copy's first phase (then it also matches ErrInvalid).
var ErrOffloadOnly = errors.New("offload only is set")

// offloadOnly refuses a plan (src -> dst layouts) that moves bytes
// through the client: a segment copy-from cannot copy, or any segment
// when offload is off for the pools.
func offloadOnly(segs []layout.Segment, src, dst layout.Layout, offload bool) error {
	for _, s := range segs {
		if s.Kind == layout.Offload && offload {
			continue
		}
		why := "not whole object sets aligned in both files"
		switch {
		case !offload:
			why = "copy-from is not supported between these pools"
		case src != dst:
			why = fmt.Sprintf("layouts differ: source %s, destination %s", src, dst)
		}
		return fmt.Errorf("%w: bytes [%d, %d) cannot be copied by copy-from (%s)", ErrOffloadOnly, s.SrcOff, s.SrcOff+s.Length, why)
	}
	return nil
}

// Every operation a copy starts (a copy-from or a client read-and-write)
// is a store.Pending, which is a window.Readier. The window sees each
// complete (Ready) before its turn to be collected comes; the automatic
// window learns from its Latency.
// waitOnly hides an operation's Ready from the window, which then counts
// it out of flight only once it has been waited on: a serial copy starts
// operation i+1 only after operation i succeeded, never after a failure.
// (A Readier lets the window start the next operation as soon as the one
// ahead completes, before its result is looked at.)
type waitOnly struct{ p store.Pending }

// Wait returns once the operation is complete as Ready tells it, too. The
// window calls it exactly once, so it stands in for the window's watch:
// a copy-from's place is given back here.
func (w waitOnly) Wait() error {
	<-w.p.Ready()
	if c, ok := w.p.(window.Completer); ok {
		c.Completed()
	}
	return w.p.Wait()
}

var _ window.Readier = store.Pending(nil)

// startPlaced starts operation i, o, and counts it in flight: a copy-from
// only once it has one of the engine's in-flight places (inflight.go),
// which it gives back when it completes.
func (c *copier) startPlaced(ctx context.Context, i uint64, o op) (store.Pending, error) {
	copyFrom := o.kind == opCopyFrom
	if copyFrom {
		if err := c.e.limit.acquire(ctx); err != nil {
			return nil, fmt.Errorf("window: stopped before operation %d: %w", i, err)
		}
	}
	c.e.obs.InFlight(1)
	p, err := c.startHeld(i, o)
	switch {
	case err != nil:
		c.e.obs.InFlight(-1)
		if copyFrom {
			c.e.limit.release()
		}
		return nil, err
	case copyFrom:
		return placed{p, c.e.limit}, nil
	}
	return p, nil
}

// startHeld submits operation i, o, unless the destination may no longer
// be written (Destination.Held): checked last, after every wait.
func (c *copier) startHeld(i uint64, o op) (store.Pending, error) {
	if err := c.dst.Held(); err != nil {
		return nil, fmt.Errorf("operation %d not submitted: %w", i, err)
	}
	return c.start(o)
}

// start submits one operation.
func (c *copier) start(o op) (store.Pending, error) {
	switch o.kind {
	case opCopyFrom:
		return c.copyFrom(o)
	case opObjectRW:
		return c.background(func(buf []byte) error { return c.objectRW(o, buf) }), nil
	default:
		return c.background(func(buf []byte) error { return c.extentRW(o, buf) }), nil
	}
}

// copyFrom submits a copy-from, carrying the source object's pin if it
// has returned: one that has not is sent without, and its result checked
// against it when it is collected (Wait, copyResult).
func (c *copier) copyFrom(o op) (store.Pending, error) {
	srcOid, dstOid := c.src.Names.ObjectName(o.srcObj), c.dst.Names().ObjectName(o.dstObj)
	p, err := c.dst.Objects().Submit(dstOid, c.src.Objects.Locate(srcOid), store.CopyOptions{
		SrcVersion: c.pins.versionSoFar(o.srcObj),
		SrcFadvise: c.opts.SrcFadvise,
		DstFadvise: c.opts.DstFadvise,
		Generation: objectGeneration(c.dst.Generation(), c.dst.Layout(), o.dstObj),
	})
	if err != nil {
		return nil, err
	}
	return &copyFromPending{c: c, p: p, o: o, srcOid: srcOid, dstOid: dstOid}, nil
}

// objectGeneration is what a client writing object obj of a file with
// generation g sends: the sequence, and the file's truncate size mapped
// onto the object (Ceph's Striper::object_truncate_size, which is the
// length the object has in a file of that size).
func objectGeneration(g store.Generation, l layout.Layout, obj uint64) store.Generation {
	if g.Seq == 0 {
		return store.Generation{}
	}
	return store.Generation{Seq: g.Seq, Size: l.ObjectLength(g.Size, obj)}
}

type copyFromPending struct {
	c              *copier
	p              store.Pending
	o              op
	srcOid, dstOid string
}

var _ store.Pending = (*copyFromPending)(nil)

func (cp *copyFromPending) Ready() <-chan struct{} { return cp.p.Ready() }

// Latency is the copy-from's latency as librados measured it, free of the
// time it waited for earlier operations to be collected.
func (cp *copyFromPending) Latency() time.Duration { return cp.p.Latency() }

func (cp *copyFromPending) CopiedVersion() uint64 { return cp.p.CopiedVersion() }

// Wait checks a pinned copy's result against its pin, once that has
// returned (a failed pin is the copy's error), and turns a missing source
// object into a hole: whole objects inside the source's size that do not
// exist read as zeros, so the destination must hold no data there either
// (punch).
func (cp *copyFromPending) Wait() error {
	err := cp.p.Wait()
	cp.c.e.obs.CopyDone(cp.p.Latency(), cp.o.length, err)
	if cp.c.pins != nil {
		// Never stuck: pins are sent in object order and stop only
		// after a failed one, which await then returns.
		if perr := cp.c.pins.await(context.Background(), cp.o.srcObj+1); perr != nil {
			return perr
		}
	}
	err = cp.c.copyResult(cp.o.srcObj, cp.srcOid, err, cp.p.CopiedVersion())
	if errors.Is(err, store.ErrNotFound) {
		return cp.c.punch(cp.o.dstObj, cp.dstOid)
	}
	return err
}

// punch makes destination object obj read as zeros: removed, or emptied
// when it carries the destination's metadata. With extentRW's zeroing it
// is the one hole rule of every path: where the source has no object, the
// destination reads as zeros afterwards, whatever it held before (inside
// or past its original EOF), and no object is created for the hole.
func (c *copier) punch(obj uint64, oid string) error {
	if !c.dst.Offloadable(obj) {
		return c.dst.Objects().WriteFull(oid, nil)
	}
	if err := c.dst.Objects().Remove(oid); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}
