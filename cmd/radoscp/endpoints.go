package main

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/address"
	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
)

// flagLayout is the layout given by --object-size, --stripe-unit and
// --stripe-count, for raw object sets and new striped objects.
func flagLayout(cfg config.Config) (layout.Layout, error) {
	l := layout.Layout{StripeUnit: cfg.StripeUnit, StripeCount: cfg.StripeCount, ObjectSize: cfg.ObjectSize}
	if l.StripeUnit == 0 {
		l.StripeUnit = l.ObjectSize
	}
	if err := l.Validate(); err != nil {
		return l, err
	}
	return l, nil
}

// openPool opens an address's pool; a missing pool is invalid input.
func openPool(conn *rados.Conn, a address.Address) (*rados.Pool, error) {
	p, err := conn.OpenPool(a.Pool, a.Namespace)
	if errors.Is(err, store.ErrNotFound) {
		return nil, usage("%s: pool %q does not exist", a, a.Pool)
	}
	return p, err
}

// openSource opens req's source, at its pool snapshot with --snap (then
// also returned; nil for head).
func openSource(conn *rados.Conn, cfg config.Config, req cpRequest) (radoscp.Source, *rados.PoolSnap, error) {
	p, snap, err := openSourcePool(conn, req)
	if err != nil {
		return radoscp.Source{}, nil, err
	}
	src, err := openSourceIn(p, cfg, req)
	return src, snap, err
}

// openSourcePool opens the source's pool, reading at --snap's snapshot.
// A missing snapshot is invalid input: nothing has been written yet.
func openSourcePool(conn *rados.Conn, req cpRequest) (*rados.Pool, *rados.PoolSnap, error) {
	if req.snap == "" {
		p, err := openPool(conn, req.src)
		return p, nil, err
	}
	snap, err := conn.LookupPoolSnap(req.src.Pool, req.snap)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, nil, usage("--snap %s: %s: %v", req.snap, req.src, err)
	case err != nil:
		return nil, nil, fmt.Errorf("--snap %s: %s: %w", req.snap, req.src, err)
	}
	p, err := conn.OpenPoolAt(req.src.Pool, req.src.Namespace, snap.ID)
	if err != nil {
		return nil, nil, fmt.Errorf("source %s at %s: %w", req.src, snap, err)
	}
	return p, &snap, nil
}

func openSourceIn(p *rados.Pool, cfg config.Config, req cpRequest) (radoscp.Source, error) {
	switch req.src.Scheme {
	case address.Striper:
		meta, err := truncate.ReadStriperMeta(p, req.src.Name)
		if errors.Is(err, store.ErrNotFound) {
			return radoscp.Source{}, usage("source %s does not exist: no object %s", req.src, p.Ref(layout.Striper(req.src.Name).ObjectName(0)))
		}
		if err != nil && store.ErrnoOf(err) == 0 {
			// No errno: the object is there but its metadata is not a
			// striped object's, which is what the address claimed.
			return radoscp.Source{}, usage("source %s: %w", req.src, err)
		}
		if err != nil {
			return radoscp.Source{}, fmt.Errorf("source %s: %w", req.src, err)
		}
		return radoscp.Source{Objects: p, Layout: meta.Layout, Names: layout.Striper(req.src.Name), Size: meta.Size}, nil
	default:
		l, err := flagLayout(cfg)
		if err != nil {
			return radoscp.Source{}, usageError{err}
		}
		if req.srcOff > ^uint64(0)-req.length {
			return radoscp.Source{}, usage("--src-offset %d + --length %d overflows", req.srcOff, req.length)
		}
		src := radoscp.Source{Objects: p, Layout: l, Names: layout.Prefix(req.src.Name), Size: req.srcOff + req.length}
		if !cfg.AllowMissing {
			if err := requireSourceObject(src, req, statWidth(cfg)); err != nil {
				return radoscp.Source{}, err
			}
		}
		return src, nil
	}
}

// requireSourceObject fails with ENOENT, naming the first missing object,
// when no object of a rados: source's range exists: such a copy would
// write nothing but a hole, and is almost always a mistyped name or
// --src-offset. It stats objects in order (width at a time) until one
// exists, so a source that is there costs about one stat. A client that
// may not read the source (EPERM: copy-from does not need it, see
// --pin-source=false with --offload-only) cannot be checked, and is not.
func requireSourceObject(src radoscp.Source, req cpRequest, width int) error {
	if req.length == 0 {
		return nil
	}
	found, err := truncate.NewRaw(src.Objects, src.Layout, req.src.Name, 0).Existing(req.srcOff, req.srcOff+req.length, width)
	if errors.Is(err, store.ErrPermission) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("source %s: %w", req.src, err)
	}
	if found != "" {
		return nil
	}
	var first uint64
	for ext := range src.Layout.Extents(req.srcOff, req.length) {
		first = ext.ObjectNo
		break
	}
	return fmt.Errorf("source %s: %w", req.src, &store.Error{Op: "stat", Object: src.Objects.Ref(src.Names.ObjectName(first)), Errno: syscall.ENOENT,
		Detail: fmt.Sprintf("no object of bytes [%d, %d) exists: a mistyped name or --src-offset? --allow-missing copies the range as a hole",
			req.srcOff, req.srcOff+req.length)})
}

// openDestination opens req's destination, holding its copy lock. An
// existing destination with --no-clobber is invalid input (checked before
// anything is written); a destination another live copy holds is a
// failure naming that copy.
func openDestination(conn *rados.Conn, cfg config.Config, req cpRequest, length uint64) (radoscp.Destination, error) {
	p, err := openPool(conn, req.dst)
	if err != nil {
		return nil, err
	}
	l, err := flagLayout(cfg)
	if err != nil {
		return nil, usageError{err}
	}
	var dst radoscp.Destination
	switch req.dst.Scheme {
	case address.Striper:
		s, err := truncate.OpenStriperWith(p, req.dst.Name, l, truncate.StriperOptions{NoClobber: req.noClobber})
		if err != nil {
			return nil, destinationError(req, err)
		}
		dst = s
	default:
		if req.noClobber {
			if req.dstSize > 0 {
				return nil, usage("destination %s exists (--dst-size %d) and --no-clobber is set", req.dst, req.dstSize)
			}
			obj, err := truncate.NewRaw(p, l, req.dst.Name, 0).Existing(req.dstOff, req.dstOff+length, statWidth(cfg))
			if err != nil {
				return nil, fmt.Errorf("destination %s: %w", req.dst, err)
			}
			if obj != "" {
				return nil, usage("destination %s exists (object %s) and --no-clobber is set", req.dst, obj)
			}
		}
		r, err := truncate.OpenRaw(p, l, req.dst.Name, req.dstSize)
		if err != nil {
			return nil, destinationError(req, err)
		}
		dst = r
	}
	if h := lockOf(dst).TookOver; h != nil {
		fmt.Fprintf(stderr, "radoscp: %s: took over the lock of a copy that is gone (%s)\n", req.dst, h)
	}
	return dst, nil
}

func destinationError(req cpRequest, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, truncate.ErrForeignObject):
		return usage("destination %s: %w", req.dst, err)
	case errors.Is(err, store.ErrExists):
		return usage("destination %s exists and --no-clobber is set (%v)", req.dst, err)
	case errors.Is(err, truncate.ErrHeld):
		return fmt.Errorf("%s is %w", req.dst, err)
	}
	return fmt.Errorf("destination %s: %w", req.dst, err)
}

// lockOf is the copy lock an opened destination holds.
func lockOf(dst radoscp.Destination) *truncate.CopyLock {
	switch d := dst.(type) {
	case *truncate.Striper:
		return d.Lock()
	case *truncate.Raw:
		return d.Lock()
	}
	return nil
}

// statWidth is how many metadata operations (stats, removes) run at once
// around a copy: the window, but at least 16 and at most 64 (they are
// small operations).
func statWidth(cfg config.Config) int {
	return min(max(cfg.Window, 16), 64)
}
