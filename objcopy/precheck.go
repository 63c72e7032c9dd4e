package objcopy

import (
	"errors"
	"fmt"
	"strings"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/address"
	"github.com/radoscp/radoscp/layout"
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
func ownObjects(req Request) error {
	if req.Src.Canonical() != req.Dst.Canonical() || (req.Dst.Scheme == address.Rados && req.Ranged) {
		return nil
	}
	if req.Snap != "" {
		return usage("--snap %s: %s", req.Snap, restoreAdvice(req))
	}
	if req.Dst.Scheme == address.Rados {
		return usage("%s is both the source and the destination: a whole copy empties the destination first; copy to another prefix, or give --src-offset and --dst-offset for ranges of it that share no object", req.Dst)
	}
	return usage("%s is both the source and the destination: a copy writes the destination's object 0 (its size, lock and record), which also holds the source's, and a whole copy empties it first; copy to another name", req.Dst)
}

// restoreAdvice says why a copy from a pool snapshot of objects onto the
// same objects is refused, and how to restore them in place: through a
// copy under another name (COPY_FROM2 from an object's snapshot onto its
// head deadlocks in the OSD, and rados has no rename).
func restoreAdvice(req Request) string {
	tmp := req.Dst
	tmp.Name += ".restore"
	first := []string{"radoscp cp --snap", req.Snap}
	var second []string
	if req.SrcOffset > 0 {
		first = append(first, "--src-offset", fmt.Sprint(req.SrcOffset))
	}
	if req.DstOffset > 0 {
		second = append(second, "--dst-offset", fmt.Sprint(req.DstOffset))
	}
	if req.HaveLength {
		first = append(first, "--length", fmt.Sprint(req.Length))
		second = append(second, "--length", fmt.Sprint(req.Length))
	}
	if req.DstSize > 0 {
		second = append(second, "--dst-size", fmt.Sprint(req.DstSize))
	}
	first = append(first, req.Src.Canonical(), tmp.Canonical())
	second = append(append([]string{"radoscp cp"}, second...), tmp.Canonical(), req.Dst.Canonical())
	layoutFlags, remove := "", tmp.Canonical()
	if req.Dst.Scheme == address.Rados {
		layoutFlags = " (both with this copy's --object-size, --stripe-unit and --stripe-count)"
	} else {
		ns := ""
		if tmp.Namespace != "" {
			ns = " -N " + tmp.Namespace
		}
		remove += fmt.Sprintf(" (rados -p %s%s --striper rm %s)", tmp.Pool, ns, tmp.Name)
	}
	return fmt.Sprintf("%s is both the source and the destination: a copy-from from an object's snapshot onto the object itself wedges the OSD; to restore it in place, copy the snapshot to a new name, then that copy onto it: %s && %s%s, then remove %s",
		req.Dst, strings.Join(first, " "), strings.Join(second, " "), layoutFlags, remove)
}

// precheck refuses, reading only, what the copy would refuse once its
// destination is open: the engine's checks (ranges, objects shared with
// the source, --offload-only) against the destination as it will be
// opened, a striped destination that is not one, a raw destination's
// lock object that is someone else's, and a --resume that cannot continue
// into it.
// lock is the read of a raw destination's lock object started with the
// source's checks (nil: it is read here).
func (c *Copier) precheck(req Request, src radoscp.Source, length uint64, lock *lockObjectCheck) (*sourceRecord, error) {
	p, l, err := c.destinationPool(req)
	if err != nil {
		return nil, err
	}
	target := radoscp.Target{Objects: p, Layout: l, Names: layout.Prefix(req.Dst.Name)}
	var meta *truncate.StriperMeta
	if req.Dst.Scheme == address.Striper {
		target.Names = layout.Striper(req.Dst.Name)
		if meta, err = StripedMeta(p, req.Dst, "destination"); err != nil {
			return nil, err
		}
		if meta != nil {
			target.Layout = meta.Layout // an existing striped object keeps its own
		}
	}
	if err := c.engine.Check(src, req.SrcOffset, target, req.DstOffset, length, req.Options); err != nil {
		switch {
		case errors.Is(err, radoscp.ErrOverlap) && req.Snap != "":
			return nil, usage("--snap %s: %s", req.Snap, restoreAdvice(req))
		case errors.Is(err, radoscp.ErrOverlap):
			return nil, usage("%s: --src-offset %d and --dst-offset %d with --length %d: %w", req.Dst, req.SrcOffset, req.DstOffset, length, err)
		}
		return nil, invalid(err)
	}
	if req.Dst.Scheme == address.Rados {
		if lock == nil {
			lock = startLockObjectCheck(p, req.Dst.Name)
		}
		if err := checkDstSize(p, l, req, length); err != nil {
			lock.wait()
			return nil, err
		}
		return nil, destinationError(req, lock.wait())
	}
	if req.DryRun && !req.Resume {
		return nil, nil
	}
	// prepare records the copy on a striped destination before it
	// writes a byte; what can fail in that (reading the source's
	// versions, a record there that does not parse) fails here, before
	// the destination is created or locked.
	rec, err := newSourceRecord(src, req, length, req.Width)
	if err != nil {
		return nil, err
	}
	if meta == nil {
		return &rec, nil
	}
	b, err := truncate.ReadStriperRecord(p, req.Dst.Name)
	if err != nil {
		return nil, fmt.Errorf("destination %s: %w", req.Dst, err)
	}
	old, err := parseRecord(b, req)
	if err != nil {
		return nil, err
	}
	if req.Resume {
		if err := checkResumable(old, rec, meta.Size, req); err != nil {
			return nil, err
		}
	}
	return &rec, nil
}

// checkDstSize refuses a range copy into a raw object set that holds data
// at or past --dst-size where the copy can cut back. A raw set records no
// EOF: the copy takes req.DstSize as the truth, and a failure cuts back
// whole object sets from the published EOF (at least --dst-size) up to
// where the copy wrote, removing or truncating every object there past it
// (see truncate.Raw.CutBack). Data there past a --dst-size given too small
// (0, the default, says "empty") would be lost, before and after the range
// too; the parallel copy a too small --dst-size allows also writes ahead of
// a failure. So the sets the copy can write past --dst-size,
// [max(--dst-offset, --dst-size), --dst-offset+length), are statted (Width
// at a time, one stat per object; none when the range ends at or below
// --dst-size). A whole copy is not checked: it replaces the set by design
// (prepare). Nor is --no-clobber: it refuses any object of the range.
func checkDstSize(p store.Objects, l layout.Layout, req Request, length uint64) error {
	if !req.Ranged || req.NoClobber {
		return nil
	}
	from, to := max(req.DstOffset, req.DstSize), req.DstOffset+length
	obj, err := truncate.NewRaw(p, l, req.Dst.Name, req.DstSize).PastEOF(from, to, req.Width)
	switch {
	case err != nil:
		return fmt.Errorf("destination %s: checking for data past --dst-size %d: %w", req.Dst, req.DstSize, err)
	case obj != "":
		return usage("destination %s holds data at or past --dst-size %d (object %s), in the object sets this copy writes past it: a failure would cut them back to that EOF, losing data outside the range; a rados: destination records no EOF: give its true EOF with --dst-size",
			req.Dst, req.DstSize, obj)
	}
	return nil
}

// lockObjectCheck reads a raw destination's lock object
// (truncate.CheckRawLockObject) in the background: started before the
// source is checked, the two reads share a round trip to the OSDs, and
// precheck takes its answer.
type lockObjectCheck struct {
	done chan struct{}
	err  error
}

func startLockObjectCheck(p store.Objects, prefix string) *lockObjectCheck {
	l := &lockObjectCheck{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.err = truncate.CheckRawLockObject(p, prefix)
	}()
	return l
}

// checkLockObjectEarly starts reading req's lock object if req's
// destination is a raw object set whose pool opens; nil otherwise
// (precheck reports the pool).
func (c *Copier) checkLockObjectEarly(req Request) *lockObjectCheck {
	if req.Dst.Scheme != address.Rados {
		return nil
	}
	p, err := c.openPool(req.Dst)
	if err != nil {
		return nil
	}
	return startLockObjectCheck(p, req.Dst.Name)
}

// wait returns the check's answer once it has one: every path out of a
// copy waits, so no read is in flight when the connection closes. nil
// waits for nothing.
func (l *lockObjectCheck) wait() error {
	if l == nil {
		return nil
	}
	<-l.done
	return l.err
}
