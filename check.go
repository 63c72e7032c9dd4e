package radoscp

import (
	"errors"
	"fmt"
	"math"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
)

// Target is a destination as the checks of a copy see it: the pool its
// objects are in, their layout and their naming. It can be described
// before the destination is opened, since opening one (creating it,
// taking its lock) and preparing it (emptying it to replace it) write.
type Target struct {
	Objects store.Objects
	Layout  layout.Layout
	Names   layout.Namer
}

// TargetOf is the target an opened destination writes.
func TargetOf(d Destination) Target {
	return Target{Objects: d.Objects(), Layout: d.Layout(), Names: d.Names()}
}

// ErrOverlap is a copy refused because it would read and write the same
// objects (errors.Is; it also matches ErrInvalid).
var ErrOverlap = errors.New("source and destination overlap in the same objects")

// Check reports whether Copy would refuse a copy of these arguments into
// a destination that is dst when opened, with the same error (matching
// ErrInvalid): invalid arguments; source and destination sharing an
// object, also an object's pool snapshot and its head (a copy-from onto
// the object it reads from a snapshot wedges the OSD); and, with
// o.OffloadOnly, bytes copy-from cannot copy, as the engine knows now. A
// caller that changes the destination before the copy (empties it to
// replace it, records the copy on it) checks first, so that a copy that
// is refused has changed nothing. Check writes nothing.
func (e *Engine) Check(src Source, srcOff uint64, dst Target, dstOff, length uint64, o Options) error {
	if err := validate(src, srcOff, dst, dstOff, length); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if !o.OffloadOnly {
		return nil
	}
	pair := pairOf(src, dst)
	segs, err := layout.Plan(src.Layout, srcOff, dst.Layout, dstOff, length)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if err := offloadOnly(segs, src.Layout, dst.Layout, e.Offload(pair.src, pair.dst)); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return nil
}

func validate(src Source, srcOff uint64, dst Target, dstOff, length uint64) error {
	if err := src.Layout.Validate(); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	if err := dst.Layout.Validate(); err != nil {
		return fmt.Errorf("destination: %w", err)
	}
	if srcOff > math.MaxUint64-length {
		return fmt.Errorf("source offset %d + length %d overflows", srcOff, length)
	}
	if dstOff > math.MaxUint64-length {
		return fmt.Errorf("destination offset %d + length %d overflows", dstOff, length)
	}
	if srcOff+length > src.Size {
		return fmt.Errorf("range [%d, %d) runs past the source's EOF %d", srcOff, srcOff+length, src.Size)
	}
	if length > 0 && sameObjects(src, srcOff, dst, dstOff, length) {
		return fmt.Errorf("%w (%s)", ErrOverlap, src.Objects.Ref(src.Names.ObjectName(0)))
	}
	return nil
}

// sameObjects reports whether the copy would read and write one object:
// same pool and namespace, same object names, overlapping object ranges.
// The snapshot a source is read at does not make its objects others: a
// copy-from from an object's snapshot onto its head deadlocks in the OSD.
// Objects of differently named sets never meet: every name is the set's
// name, a dot and the object number in hex.
func sameObjects(src Source, srcOff uint64, dst Target, dstOff, length uint64) bool {
	s, d := src.Objects.Locate(src.Names.ObjectName(0)), dst.Objects.Locate(dst.Names.ObjectName(0))
	if s.Pool != d.Pool || s.Namespace != d.Namespace || s.Oid != d.Oid {
		return false
	}
	sl, dl := src.Layout, dst.Layout
	sFirst, sEnd := firstObject(sl, srcOff), objectsEnd(sl, srcOff+length)
	dFirst, dEnd := firstObject(dl, dstOff), objectsEnd(dl, dstOff+length)
	return sFirst < dEnd && dFirst < sEnd
}

// firstObject and objectsEnd bound the object numbers a byte range can
// touch: whole object sets, which is coarse but never misses one.
func firstObject(l layout.Layout, off uint64) uint64 {
	return off / l.SetSize() * l.StripeCount
}

func objectsEnd(l layout.Layout, end uint64) uint64 {
	return (end + l.SetSize() - 1) / l.SetSize() * l.StripeCount
}
