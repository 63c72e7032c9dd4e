package objcopy

import (
	"fmt"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/address"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/truncate"
)

// dryRun says what the copy of req would do with src's length bytes, and
// writes nothing: the destination is only read (a striped object's
// size, which raw objects exist), and refused as a real run would refuse
// it (NoClobber, a full pool). It takes no lock, so a copy running into
// the destination is not seen.
func (c *Copier) dryRun(req Request, src radoscp.Source, length uint64) (Outcome, error) {
	var out Outcome
	if err := c.pools.Full(req.Dst.Pool); err != nil {
		return out, fmt.Errorf("destination %s: %w", req.Dst, err)
	}
	action, eof, target, err := c.dryRunDestination(req, length)
	if err != nil {
		return out, err
	}
	if action == "resume" {
		req, length = resumed(eof, req, length)
	}
	objects, err := c.copyFroms(req, src, target, length)
	if err != nil {
		return out, err
	}
	res := radoscp.Result{Bytes: length, Objects: objects, Window: req.VerifyWindow,
		PublishedEOF: req.DstOffset + length}
	if req.Ranged || action == "resume" {
		res.PublishedEOF = max(eof, req.DstOffset+length)
	}
	return Outcome{Result: res, Length: length, DryRun: action, DryRunEOF: eof}, nil
}

// dryRunDestination reads what the copy would find at req's destination:
// the action (create, replace, write-into, resume), its EOF now, and the
// target the copy would write (an existing striped object keeps its
// layout).
func (c *Copier) dryRunDestination(req Request, length uint64) (string, uint64, radoscp.Target, error) {
	var t radoscp.Target
	p, err := c.openPool(req.Dst)
	if err != nil {
		return "", 0, t, err
	}
	l, err := layoutOf(req)
	if err != nil {
		return "", 0, t, err
	}
	t = radoscp.Target{Objects: p, Layout: l, Names: layout.Prefix(req.Dst.Name)}
	var eof uint64
	exists := false
	switch req.Dst.Scheme {
	case address.Striper:
		meta, err := StripedMeta(p, req.Dst, "destination")
		if err != nil {
			return "", 0, t, err
		}
		t.Names = layout.Striper(req.Dst.Name)
		if meta != nil {
			exists, eof, t.Layout = true, meta.Size, meta.Layout
		}
	default:
		obj, err := truncate.NewRaw(p, l, req.Dst.Name, 0).Existing(req.DstOffset, req.DstOffset+length, req.Width)
		if err != nil {
			return "", 0, t, fmt.Errorf("destination %s: %w", req.Dst, err)
		}
		exists, eof = obj != "" || req.DstSize > 0, req.DstSize
	}
	switch {
	case exists && req.NoClobber:
		return "", 0, t, usage("destination %s exists and --no-clobber is set", req.Dst)
	case req.Resume:
		return "resume", eof, t, nil
	case !exists:
		return "create", eof, t, nil
	case req.Ranged:
		return "write-into", eof, t, nil
	}
	return "replace", eof, t, nil
}

// copyFroms is how many copy-froms the copy of req would make into t: the
// run's object count. A striped destination's object 0, which carries its
// metadata, is written by the client.
func (c *Copier) copyFroms(req Request, src radoscp.Source, t radoscp.Target, length uint64) (uint64, error) {
	offloadable := func(uint64) bool { return true }
	if req.Dst.Scheme == address.Striper {
		offloadable = func(obj uint64) bool { return obj != 0 }
	}
	n, err := c.engine.CopyFroms(src, req.SrcOffset, t, req.DstOffset, length, offloadable)
	if err != nil {
		return 0, invalid(err)
	}
	return n, nil
}
