package objcopy

import (
	"fmt"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/address"
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
	action, eof, err := c.dryRunDestination(req, length)
	if err != nil {
		return out, err
	}
	if action == "resume" {
		req, length = resumed(eof, req, length)
	}
	res := radoscp.Result{Bytes: length, Objects: objectsIn(src, req.SrcOffset, length), Window: req.VerifyWindow,
		PublishedEOF: req.DstOffset + length}
	if req.Ranged || action == "resume" {
		res.PublishedEOF = max(eof, req.DstOffset+length)
	}
	return Outcome{Result: res, Length: length, DryRun: action, DryRunEOF: eof}, nil
}

// dryRunDestination reads what the copy would find at req's destination:
// the action (create, replace, write-into, resume) and its EOF now.
func (c *Copier) dryRunDestination(req Request, length uint64) (string, uint64, error) {
	p, err := c.openPool(req.Dst)
	if err != nil {
		return "", 0, err
	}
	var eof uint64
	exists := false
	switch req.Dst.Scheme {
	case address.Striper:
		meta, err := StripedMeta(p, req.Dst, "destination")
		if err != nil {
			return "", 0, err
		}
		if meta != nil {
			exists, eof = true, meta.Size
		}
	default:
		l, err := layoutOf(req)
		if err != nil {
			return "", 0, err
		}
		obj, err := truncate.NewRaw(p, l, req.Dst.Name, 0).Existing(req.DstOffset, req.DstOffset+length, req.Width)
		if err != nil {
			return "", 0, fmt.Errorf("destination %s: %w", req.Dst, err)
		}
		exists, eof = obj != "" || req.DstSize > 0, req.DstSize
	}
	switch {
	case exists && req.NoClobber:
		return "", 0, usage("destination %s exists and --no-clobber is set", req.Dst)
	case req.Resume:
		return "resume", eof, nil
	case !exists:
		return "create", eof, nil
	case req.Ranged:
		return "write-into", eof, nil
	}
	return "replace", eof, nil
}

// objectsIn counts the source objects [off, off+length) touches.
func objectsIn(src radoscp.Source, off, length uint64) uint64 {
	seen := map[uint64]bool{}
	for ext := range src.Layout.Extents(off, length) {
		seen[ext.ObjectNo] = true
	}
	return uint64(len(seen))
}
