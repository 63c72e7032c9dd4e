package objcopy

import (
	"context"
	"fmt"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/verify"
)

// Copier copies rados: and striper: addresses over one set of pools with
// one engine (which remembers for its life whether copy-from works).
type Copier struct {
	engine *radoscp.Engine
	pools  Pools
	// started, when set, is told the length to copy once it is known,
	// before the engine starts; the function it returns is called when
	// the engine has ended.
	started func(length uint64) func()
}

// New returns a Copier. started may be nil; see Copier.
func New(engine *radoscp.Engine, pools Pools, started func(length uint64) (ended func())) *Copier {
	return &Copier{engine: engine, pools: pools, started: started}
}

// Copy copies as req asks, end to end. It refuses, writing nothing, what
// it must refuse (InvalidError); then it opens the destination, holding
// its copy lock from before anything is written until the copy has
// ended, prepares it (replace, record, --resume), runs the engine,
// finishes a striped destination, and verifies with req.Verify. A failure
// after a prefix was copied and published is a PartialError. The Outcome
// says what was done, also on failure; a cancelled ctx stops the copy
// after the operations in flight, publishing the complete prefix, and
// its error says how to continue.
func (c *Copier) Copy(ctx context.Context, req Request) (out Outcome, err error) {
	if err := ownObjects(req); err != nil {
		return out, err
	}
	lock := c.checkLockObjectEarly(req)
	defer lock.wait()
	src, snap, err := c.openSource(req)
	if err != nil {
		return out, err
	}
	length, err := copyLength(src, req)
	if err != nil {
		return out, err
	}
	rec, err := c.precheck(req, src, length, lock)
	if err != nil {
		return out, err
	}
	if req.DryRun {
		return c.dryRun(req, src, length)
	}
	if length == 0 && req.Ranged && !req.Resume {
		return c.copyNothing(req)
	}
	if err := c.pools.Full(req.Dst.Pool); err != nil {
		return out, fmt.Errorf("destination %s: %w", req.Dst, err)
	}
	// The source's pins run while the destination is opened and its
	// lock taken, round trips of their own. A --resume copy moves forward
	// in prepare and pins what is left then; a snapshot's copy pins
	// nothing.
	var pins *radoscp.Pins
	if !req.Resume && snap == nil {
		pins = c.engine.StartPins(src, req.SrcOffset, length, req.Options, req.Ranged)
	}
	defer pins.Halt()
	dst, err := c.openDestination(req, length)
	if err != nil {
		return out, err
	}
	out.TookOver = dst.Lock().TookOver
	defer func() { out.CloseErr = dst.Close() }()
	orig := req
	if req, length, err = dst.prepare(req, length, rec); err != nil {
		return out, err
	}
	eofBefore := dst.EOF() // after prepare: a whole copy has emptied it
	out.Ran, out.Length = true, length
	res, cerr := c.run(ctx, req, src, snap, dst, length, pins)
	if cerr == nil {
		cerr = dst.finish(req, max(eofBefore, req.DstOffset+length))
		if cerr != nil {
			res.PublishedEOF = dst.EOF()
		}
	}
	out.Result = res
	if cerr == nil && req.Verify != verify.Off {
		v, verr := verify.Check(ctx, req.Verify, radoscp.Source(src),
			radoscp.Source{Objects: dst.Objects(), Layout: dst.Layout(), Names: dst.Names(), Size: dst.EOF()}, req.VerifyWindow)
		out.Verified = &v
		if cerr = VerifyError(v, verr); cerr != nil {
			cerr = fmt.Errorf("%w; the copy is published as it is", cerr)
		}
	}
	if isInterrupt(cerr) {
		cerr = interrupted(orig, res, length)
	}
	return out, classify(res, out.Verified, cerr, req, length, eofBefore)
}

// copyNothing is a range copy of 0 bytes: like copy_file_range, it
// succeeds and writes nothing, wherever --dst-offset is. The destination
// is read (its EOF; --no-clobber), never opened: opening creates a
// striped one and takes its lock, and prepare records the copy on it.
func (c *Copier) copyNothing(req Request) (Outcome, error) {
	_, eof, _, err := c.dryRunDestination(req, 0)
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{Ran: true, Result: radoscp.Result{PublishedEOF: eof, Window: max(req.Options.Window, 1)}}, nil
}

// run runs the engine into dst. A copy from a pool snapshot is guarded:
// a snapshot cannot change (nothing to pin), but it can be removed, so
// every publish first checks it is still there. pins are the source's,
// started ahead (nil: the engine starts its own).
func (c *Copier) run(ctx context.Context, req Request, src radoscp.Source, snap Snapshot, dst radoscp.Destination, length uint64, pins *radoscp.Pins) (radoscp.Result, error) {
	opts := req.Options
	opts.Pins = pins
	var guard *snapGuard
	if snap != nil {
		opts.PinSource = false
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		guard = &snapGuard{Destination: dst, check: snap.Check, cancel: cancel}
		dst = guard
	}
	if c.started != nil {
		defer c.started(length)()
	}
	res, err := c.engine.Copy(ctx, src, req.SrcOffset, dst, req.DstOffset, length, opts)
	if gerr := guard.failed(); gerr != nil {
		err = fmt.Errorf("%w; stopped the copy, publishing nothing read since the last check", gerr)
	}
	return res, err
}
