package objcopy

import (
	"errors"
	"fmt"
	"math"
	"syscall"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/address"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
)

// layoutOf is req's layout for raw object sets and new striped objects,
// validated; an invalid one is invalid input.
func layoutOf(req Request) (layout.Layout, error) { return ValidLayout(req.Layout) }

// ValidLayout is l with a stripe unit of 0 meaning the object size, if it
// is valid; an invalid one is an InvalidError.
func ValidLayout(l layout.Layout) (layout.Layout, error) {
	if l.StripeUnit == 0 {
		l.StripeUnit = l.ObjectSize
	}
	if err := l.Validate(); err != nil {
		return l, invalid(err)
	}
	return l, nil
}

// openPool opens an address's pool; a missing pool is invalid input.
func (c *Copier) openPool(a address.Address) (store.Objects, error) {
	p, err := c.pools.Pool(a.Pool, a.Namespace)
	if errors.Is(err, store.ErrNotFound) {
		return nil, usage("%s: pool %q does not exist", a, a.Pool)
	}
	return p, err
}

// openSourcePool opens the source's pool, reading at req.Snap's snapshot
// (then also returned; nil for head). A missing snapshot is invalid input:
// nothing has been written yet.
func (c *Copier) openSourcePool(req Request) (store.Objects, Snapshot, error) {
	if req.Snap == "" {
		p, err := c.openPool(req.Src)
		return p, nil, err
	}
	p, snap, err := c.pools.PoolAt(req.Src.Pool, req.Src.Namespace, req.Snap)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, nil, usage("--snap %s: %s: %v", req.Snap, req.Src, err)
	case err != nil:
		return nil, nil, fmt.Errorf("--snap %s: %s: %w", req.Snap, req.Src, err)
	}
	return p, snap, nil
}

// StripedMeta reads the metadata of striped object a in objs without
// opening it (no lock); nil if it does not exist. An object there without
// a striped object's metadata is not what the address says: invalid
// input, named as what ("source", "destination").
func StripedMeta(objs store.Objects, a address.Address, what string) (*truncate.StriperMeta, error) {
	meta, err := truncate.ReadStriperMeta(objs, a.Name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, nil
	case err != nil && store.ErrnoOf(err) == 0:
		// No errno: the object is there but its metadata is not a
		// striped object's (and not to be locked or recorded on).
		return nil, usage("%s %s: %w", what, a, err)
	case err != nil:
		return nil, fmt.Errorf("%s %s: %w", what, a, err)
	}
	return &meta, nil
}

// openSource opens req's source, at its pool snapshot with req.Snap (then
// also returned).
func (c *Copier) openSource(req Request) (radoscp.Source, Snapshot, error) {
	p, snap, err := c.openSourcePool(req)
	if err != nil {
		return radoscp.Source{}, nil, err
	}
	switch req.Src.Scheme {
	case address.Striper:
		meta, err := StripedMeta(p, req.Src, "source")
		if err != nil {
			return radoscp.Source{}, nil, err
		}
		if meta == nil {
			return radoscp.Source{}, nil, usage("source %s does not exist: no object %s", req.Src, p.Ref(layout.Striper(req.Src.Name).ObjectName(0)))
		}
		return radoscp.Source{Objects: p, Layout: meta.Layout, Names: layout.Striper(req.Src.Name), Size: meta.Size}, snap, nil
	default:
		l, err := layoutOf(req)
		if err != nil {
			return radoscp.Source{}, nil, err
		}
		if req.SrcOffset > ^uint64(0)-req.Length {
			return radoscp.Source{}, nil, usage("--src-offset %d + --length %d overflows", req.SrcOffset, req.Length)
		}
		src := radoscp.Source{Objects: p, Layout: l, Names: layout.Prefix(req.Src.Name), Size: req.SrcOffset + req.Length}
		if !req.AllowMissing {
			if err := requireSourceObject(src, req); err != nil {
				return radoscp.Source{}, nil, err
			}
		}
		return src, snap, nil
	}
}

// requireSourceObject fails with ENOENT, naming the first missing object,
// when no object of a rados: source's range exists: such a copy would
// write nothing but a hole, and is almost always a mistyped name or
// --src-offset. It stats the range's first object, and if that is
// missing the others in order (req.Width at a time) until one exists, so
// a source that is there costs one stat. A client that
// may not read the source (EPERM: copy-from does not need it, see
// --pin-source=false with --offload-only) cannot be checked, and is not.
func requireSourceObject(src radoscp.Source, req Request) error {
	if req.Length == 0 {
		return nil
	}
	var first uint64
	for ext := range src.Layout.Extents(req.SrcOffset, req.Length) {
		first = ext.ObjectNo
		break
	}
	// The range's first object, alone: it is almost always there, and
	// one stat's round trip is shorter than the slowest of Width's.
	_, err := src.Objects.Stat(src.Names.ObjectName(first))
	if err == nil || errors.Is(err, store.ErrPermission) {
		return nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("source %s: %w", req.Src, err)
	}
	found, err := truncate.NewRaw(src.Objects, src.Layout, req.Src.Name, 0).Existing(req.SrcOffset, req.SrcOffset+req.Length, req.Width)
	if errors.Is(err, store.ErrPermission) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("source %s: %w", req.Src, err)
	}
	if found != "" {
		return nil
	}
	return fmt.Errorf("source %s: %w", req.Src, &store.Error{Op: "stat", Object: src.Objects.Ref(src.Names.ObjectName(first)), Errno: syscall.ENOENT,
		Detail: fmt.Sprintf("no object of bytes [%d, %d) exists: a mistyped name or --src-offset? --allow-missing copies the range as a hole",
			req.SrcOffset, req.SrcOffset+req.Length)})
}

// copyLength is the length req copies from src: req.Length, or to src's
// EOF. It refuses ranges the engine would refuse, before the destination
// exists.
func copyLength(src radoscp.Source, req Request) (uint64, error) {
	length := req.Length
	if !req.HaveLength {
		if req.SrcOffset > src.Size {
			return 0, usage("--src-offset %d is past the source's EOF %d", req.SrcOffset, src.Size)
		}
		length = src.Size - req.SrcOffset
	}
	if req.SrcOffset > math.MaxUint64-length {
		return 0, usage("--src-offset %d + --length %d overflows", req.SrcOffset, length)
	}
	if req.DstOffset > math.MaxUint64-length {
		return 0, usage("--dst-offset %d + --length %d overflows", req.DstOffset, length)
	}
	if req.SrcOffset+length > src.Size {
		return 0, usage("range [%d, %d) of --src-offset %d --length %d runs past the source's EOF %d",
			req.SrcOffset, req.SrcOffset+length, req.SrcOffset, length, src.Size)
	}
	return length, nil
}

// openDestination opens req's destination, holding its copy lock. An
// existing destination with NoClobber is invalid input (checked before
// anything is written); a destination another live copy holds is a
// failure naming that copy.
func (c *Copier) openDestination(req Request, length uint64) (destination, error) {
	p, l, err := c.destinationPool(req)
	if err != nil {
		return nil, err
	}
	switch req.Dst.Scheme {
	case address.Striper:
		s, err := truncate.OpenStriperWith(p, req.Dst.Name, l, truncate.StriperOptions{NoClobber: req.NoClobber})
		if err != nil {
			return nil, destinationError(req, err)
		}
		return &stripedDestination{Striper: s}, nil
	default:
		if req.NoClobber {
			if req.DstSize > 0 {
				return nil, usage("destination %s exists (--dst-size %d) and --no-clobber is set", req.Dst, req.DstSize)
			}
			obj, err := truncate.NewRaw(p, l, req.Dst.Name, 0).Existing(req.DstOffset, req.DstOffset+length, req.Width)
			if err != nil {
				return nil, fmt.Errorf("destination %s: %w", req.Dst, err)
			}
			if obj != "" {
				return nil, usage("destination %s exists (object %s) and --no-clobber is set", req.Dst, obj)
			}
		}
		r, err := truncate.OpenRaw(p, l, req.Dst.Name, req.DstSize)
		if err != nil {
			return nil, destinationError(req, err)
		}
		return rawDestination{r}, nil
	}
}

func destinationError(req Request, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, truncate.ErrForeignObject):
		return usage("destination %s: %w", req.Dst, err)
	case errors.Is(err, store.ErrExists):
		return usage("destination %s exists and --no-clobber is set (%v)", req.Dst, err)
	case errors.Is(err, truncate.ErrHeld):
		return fmt.Errorf("%s is %w", req.Dst, err)
	}
	return fmt.Errorf("destination %s: %w", req.Dst, err)
}

// OpenPool opens a's pool as a copy opens its source: at pool snapshot
// snap ("": head). A missing pool or snapshot is an InvalidError.
func (c *Copier) OpenPool(a address.Address, snap string) (store.Objects, error) {
	p, _, err := c.openSourcePool(Request{Src: a, Snap: snap})
	return p, err
}

// destinationPool opens req's destination pool, with the layout of a raw
// destination or a new striped one.
func (c *Copier) destinationPool(req Request) (store.Objects, layout.Layout, error) {
	p, err := c.openPool(req.Dst)
	if err != nil {
		return nil, layout.Layout{}, err
	}
	l, err := layoutOf(req)
	return p, l, err
}
