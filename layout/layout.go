package layout

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MinStripeUnit is Ceph's CEPH_MIN_STRIPE_UNIT: stripe units and object
// sizes come in multiples of it.
const MinStripeUnit = 65536

// ErrInvalid is wrapped by every error about a layout Ceph would refuse.
var ErrInvalid = errors.New("invalid layout")

// Layout is a Ceph file layout: how a file's bytes are striped over objects.
// Stripe units of StripeUnit bytes go round-robin over StripeCount objects
// until each holds ObjectSize bytes; that group of objects is an object set,
// and the next SetSize bytes of the file start the next set.
//
// Methods other than Validate and String assume a valid layout; they divide
// by its fields and so panic on zeros.
type Layout struct {
	StripeUnit, StripeCount, ObjectSize uint64
}

// Validate applies Ceph's file_layout_t::is_valid, plus the limit that each
// field is a 32-bit integer in Ceph's encoding, so a layout that passes here
// is one a Ceph client could have written and its arithmetic cannot overflow.
// The error wraps ErrInvalid and names the first bad field.
func (l Layout) Validate() error {
	switch {
	case l.StripeUnit == 0:
		return invalid("stripe_unit 0 is not positive")
	case l.StripeUnit%MinStripeUnit != 0:
		return invalid("stripe_unit %d is not a multiple of %d", l.StripeUnit, MinStripeUnit)
	case l.StripeUnit > math.MaxUint32:
		return invalid("stripe_unit %d exceeds %d, Ceph's 32-bit limit", l.StripeUnit, uint64(math.MaxUint32))
	case l.StripeCount == 0:
		return invalid("stripe_count 0 is less than 1")
	case l.StripeCount > math.MaxUint32:
		return invalid("stripe_count %d exceeds %d, Ceph's 32-bit limit", l.StripeCount, uint64(math.MaxUint32))
	case l.ObjectSize == 0:
		return invalid("object_size 0 is not positive")
	case l.ObjectSize > math.MaxUint32:
		return invalid("object_size %d exceeds %d, Ceph's 32-bit limit", l.ObjectSize, uint64(math.MaxUint32))
	case l.ObjectSize%l.StripeUnit != 0:
		return invalid("object_size %d is not a multiple of stripe_unit %d", l.ObjectSize, l.StripeUnit)
	}
	return nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// String uses the syntax of CephFS's ceph.file.layout vxattr, so it can be
// pasted into setfattr and read back by Parse.
func (l Layout) String() string {
	return fmt.Sprintf("stripe_unit=%d stripe_count=%d object_size=%d", l.StripeUnit, l.StripeCount, l.ObjectSize)
}

// Parse reads a layout in the syntax of CephFS's ceph.file.layout vxattr,
// "stripe_unit=4194304 stripe_count=1 object_size=4194304 pool=cephfs_data".
// Keys other than the three layout fields (pool, pool_namespace) are
// ignored, since they say where objects live, not how bytes map onto them.
// The result is validated.
func Parse(s string) (Layout, error) {
	var l Layout
	fields := map[string]*uint64{"stripe_unit": &l.StripeUnit, "stripe_count": &l.StripeCount, "object_size": &l.ObjectSize}
	seen := map[string]bool{}
	for _, kv := range strings.Fields(s) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return Layout{}, fmt.Errorf("%w: %q: %q is not key=value", ErrInvalid, s, kv)
		}
		p := fields[k]
		if p == nil {
			continue
		}
		if seen[k] {
			return Layout{}, fmt.Errorf("%w: %q: %s given twice", ErrInvalid, s, k)
		}
		seen[k] = true
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return Layout{}, fmt.Errorf("%w: %q: %s %q is not a decimal integer", ErrInvalid, s, k, v)
		}
		*p = n
	}
	for _, k := range []string{"stripe_unit", "stripe_count", "object_size"} {
		if !seen[k] {
			return Layout{}, fmt.Errorf("%w: %q has no %s", ErrInvalid, s, k)
		}
	}
	return l, l.Validate()
}

// SetSize is how many bytes of file one object set holds. It cannot
// overflow for a valid layout: both factors fit in 32 bits.
func (l Layout) SetSize() uint64 { return l.ObjectSize * l.StripeCount }

// Locate returns the object holding file byte off and the byte's offset in
// that object, by the arithmetic of Ceph's Striper::file_to_extents.
func (l Layout) Locate(off uint64) (objectNo, objectOff uint64) {
	spo := l.ObjectSize / l.StripeUnit
	blockNo := off / l.StripeUnit
	stripeNo := blockNo / l.StripeCount
	stripePos := blockNo % l.StripeCount
	objectSetNo := stripeNo / spo
	objectNo = objectSetNo*l.StripeCount + stripePos
	objectOff = (stripeNo%spo)*l.StripeUnit + off%l.StripeUnit
	return objectNo, objectOff
}

// FileOffset is the inverse of Locate, as Ceph's Striper::extent_to_file.
// objectOff must be below ObjectSize; a position past the end of the 64-bit
// file offset space wraps, and Locate never returns one.
func (l Layout) FileOffset(objectNo, objectOff uint64) uint64 {
	spo := l.ObjectSize / l.StripeUnit
	stripePos := objectNo % l.StripeCount
	objectSetNo := objectNo / l.StripeCount
	stripeNo := objectSetNo*spo + objectOff/l.StripeUnit
	blockNo := stripeNo*l.StripeCount + stripePos
	return blockNo*l.StripeUnit + objectOff%l.StripeUnit
}

// ObjectLength is the size object objectNo has in a densely written file of
// fileSize bytes: what it must be cut back to when the file is cut to that
// EOF. It is Ceph's Striper::object_truncate_size.
func (l Layout) ObjectLength(fileSize, objectNo uint64) uint64 {
	// Compare set numbers rather than multiplying objectNo up to a file
	// offset, which could overflow for object numbers past the file.
	set := objectNo / l.StripeCount
	switch fullSets := fileSize / l.SetSize(); {
	case set < fullSets:
		return l.ObjectSize
	case set > fullSets:
		return 0
	}
	rest := fileSize % l.SetSize()
	width := l.StripeUnit * l.StripeCount
	n := rest / width * l.StripeUnit
	// The partial stripe fills stripe units in object order within the set.
	if before := (objectNo % l.StripeCount) * l.StripeUnit; rest%width > before {
		n += min(rest%width-before, l.StripeUnit)
	}
	return n
}

// ObjectsFor is how many object numbers a file of fileSize bytes can touch:
// one more than the highest, 0 for an empty file. Objects below it may still
// be absent (holes, or an object set the file only partly reaches).
func (l Layout) ObjectsFor(fileSize uint64) uint64 {
	if fileSize == 0 {
		return 0
	}
	lastSet := (fileSize - 1) / l.SetSize()
	inLastSet := (fileSize-1)%l.SetSize() + 1
	units := (inLastSet-1)/l.StripeUnit + 1
	return lastSet*l.StripeCount + min(units, l.StripeCount)
}
