package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/address"
	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
)

// Everything that can refuse a rados: or striper: copy is decided before
// anything is opened for writing: opening the destination creates a
// striped one and takes its copy lock (cls_lock leaves its xattr behind),
// and prepare empties it for a whole copy or records the copy on its
// object 0. A refused copy (exit 2) has written nothing, not even an
// xattr, and never its source.

// ownObjects refuses a copy whose destination is its source's own objects:
// the same striped object (a copy into one writes its object 0, which
// holds the source's first bytes and size, and a whole copy empties it
// first), or a raw object set copied whole onto itself (emptied first).
// Ranges of one raw object set that share no object are a copy like any
// other; those that share one are refused by precheck. It needs nothing
// opened.
func ownObjects(req cpRequest) error {
	if req.src.Canonical() != req.dst.Canonical() || (req.dst.Scheme == address.Rados && req.ranged) {
		return nil
	}
	if req.snap != "" {
		return usage("--snap %s: %s", req.snap, restoreAdvice(req))
	}
	if req.dst.Scheme == address.Rados {
		return usage("%s is both the source and the destination: a whole copy empties the destination first; copy to another prefix, or give --src-offset and --dst-offset for ranges of it that share no object", req.dst)
	}
	return usage("%s is both the source and the destination: a copy writes the destination's object 0 (its size, lock and record), which also holds the source's, and a whole copy empties it first; copy to another name", req.dst)
}

// restoreAdvice says why a copy from a pool snapshot of objects onto the
// same objects is refused, and how to restore them in place: through a
// copy under another name (COPY_FROM2 from an object's snapshot onto its
// head deadlocks in the OSD, and rados has no rename).
func restoreAdvice(req cpRequest) string {
	tmp := req.dst
	tmp.Name += ".restore"
	first := []string{"radoscp cp --snap", req.snap}
	var second []string
	if req.srcOff > 0 {
		first = append(first, "--src-offset", fmt.Sprint(req.srcOff))
	}
	if req.dstOff > 0 {
		second = append(second, "--dst-offset", fmt.Sprint(req.dstOff))
	}
	if req.haveLength {
		first = append(first, "--length", fmt.Sprint(req.length))
		second = append(second, "--length", fmt.Sprint(req.length))
	}
	if req.dstSize > 0 {
		second = append(second, "--dst-size", fmt.Sprint(req.dstSize))
	}
	first = append(first, req.src.Canonical(), tmp.Canonical())
	second = append(append([]string{"radoscp cp"}, second...), tmp.Canonical(), req.dst.Canonical())
	layoutFlags, remove := "", tmp.Canonical()
	if req.dst.Scheme == address.Rados {
		layoutFlags = " (both with this copy's --object-size, --stripe-unit and --stripe-count)"
	} else {
		ns := ""
		if tmp.Namespace != "" {
			ns = " -N " + tmp.Namespace
		}
		remove += fmt.Sprintf(" (rados -p %s%s --striper rm %s)", tmp.Pool, ns, tmp.Name)
	}
	return fmt.Sprintf("%s is both the source and the destination: a copy-from from an object's snapshot onto the object itself wedges the OSD; to restore it in place, copy the snapshot to a new name, then that copy onto it: %s && %s%s, then remove %s",
		req.dst, strings.Join(first, " "), strings.Join(second, " "), layoutFlags, remove)
}

// checked is what precheck found that the copy uses.
type checked struct {
	// rec is the source's record, for a striped destination (nil
	// otherwise, and in a dry run that is not a --resume).
	rec *sourceRecord
}

// precheck refuses, reading only, what the copy would refuse once its
// destination is open: the engine's checks (ranges, objects shared with
// the source, --offload-only) against the destination as it will be
// opened, a striped destination that is not one, a raw destination's
// lock object that is someone else's, and a --resume that cannot continue
// into it.
func (r *runner) precheck(cfg config.Config, req cpRequest, src radoscp.Source, length uint64, opts radoscp.Options) (checked, error) {
	var c checked
	p, err := openPool(r.conn, req.dst)
	if err != nil {
		return c, err
	}
	l, err := flagLayout(cfg)
	if err != nil {
		return c, usageError{err}
	}
	target := radoscp.Target{Objects: p, Layout: l, Names: layout.Prefix(req.dst.Name)}
	var meta *truncate.StriperMeta
	if req.dst.Scheme == address.Striper {
		target.Names = layout.Striper(req.dst.Name)
		if meta, err = readDestinationMeta(p, req); err != nil {
			return c, err
		}
		if meta != nil {
			target.Layout = meta.Layout // an existing striped object keeps its own
		}
	}
	if err := r.engine.Check(src, req.srcOff, target, req.dstOff, length, opts); err != nil {
		switch {
		case errors.Is(err, radoscp.ErrOverlap) && req.snap != "":
			return c, usage("--snap %s: %s", req.snap, restoreAdvice(req))
		case errors.Is(err, radoscp.ErrOverlap):
			return c, usage("%s: --src-offset %d and --dst-offset %d with --length %d: %w", req.dst, req.srcOff, req.dstOff, length, err)
		}
		return c, usageError{err}
	}
	if req.dst.Scheme == address.Rados {
		return c, destinationError(req, truncate.CheckRawLockObject(p, req.dst.Name))
	}
	if req.dryRun && !req.resume {
		return c, nil
	}
	// prepare records the copy on a striped destination before it
	// writes a byte; what can fail in that (reading the source's
	// versions, a record there that does not parse) fails here, before
	// the destination is created or locked.
	rec, err := newSourceRecord(src, req, length, statWidth(cfg))
	if err != nil {
		return c, err
	}
	c.rec = &rec
	if meta == nil {
		return c, nil
	}
	b, err := truncate.ReadStriperRecord(p, req.dst.Name)
	if err != nil {
		return c, fmt.Errorf("destination %s: %w", req.dst, err)
	}
	old, err := parseRecord(b, req)
	if err != nil {
		return c, err
	}
	if req.resume {
		if err := checkResumable(old, rec, meta.Size, req); err != nil {
			return c, err
		}
	}
	return c, nil
}

// readDestinationMeta reads a striped destination's metadata without
// opening it; nil if it does not exist.
func readDestinationMeta(p *rados.Pool, req cpRequest) (*truncate.StriperMeta, error) {
	meta, err := truncate.ReadStriperMeta(p, req.dst.Name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, nil
	case err != nil && store.ErrnoOf(err) == 0:
		// The object is there, without a striped object's metadata:
		// not what the address says (and not to be locked or recorded on).
		return nil, usage("destination %s: %w", req.dst, err)
	case err != nil:
		return nil, fmt.Errorf("destination %s: %w", req.dst, err)
	}
	return &meta, nil
}
