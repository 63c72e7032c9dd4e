package layout

import (
	"errors"
	"fmt"
	"math"
)

// ErrOverflow is wrapped by Plan's error for a range whose end does not fit
// in a uint64.
var ErrOverflow = errors.New("range end overflows uint64")

// Kind says how a Segment of a copy is carried out.
type Kind uint8

const (
	// ReadWrite segments are read and written by the client, through each
	// file's own layout. It is the zero Kind because it is always correct.
	ReadWrite Kind = iota
	// Offload segments are whole object sets, copied object by object with
	// RADOS copy-from on the OSDs.
	Offload
)

func (k Kind) String() string {
	switch k {
	case ReadWrite:
		return "read-write"
	case Offload:
		return "offload"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Segment is one part of a copy plan: Length bytes from SrcOff in the source
// file to DstOff in the destination. For Offload segments SrcSet and DstSet
// are the first object set of the segment in each file and Sets how many
// whole sets it spans; for ReadWrite segments they are zero.
type Segment struct {
	Kind                   Kind
	SrcOff, DstOff, Length uint64
	SrcSet, DstSet, Sets   uint64
}

// Objects is how many objects an Offload segment copies.
func (s Segment) Objects(l Layout) uint64 { return s.Sets * l.StripeCount }

// Object returns the source and destination object numbers of the i-th
// object an Offload segment copies, i < s.Objects(l). The two hold the same
// bytes at the same offsets, which is what makes copy-from exact. It panics
// on a ReadWrite segment or i out of range, both caller bugs that would
// otherwise copy the wrong object.
func (s Segment) Object(l Layout, i uint64) (srcObj, dstObj uint64) {
	if s.Kind != Offload || i >= s.Objects(l) {
		panic(fmt.Sprintf("layout: object %d of %v segment with %d objects", i, s.Kind, s.Objects(l)))
	}
	// Objects of consecutive sets are numbered consecutively, so the i-th
	// object past a set's first is just i further on.
	return s.SrcSet*l.StripeCount + i, s.DstSet*l.StripeCount + i
}

// Plan splits a copy of length bytes from srcOff in a file of layout src to
// dstOff in a file of layout dst into segments that tile the range in order.
//
// Copy-from replaces whole objects, and an object's bytes are a contiguous
// range of its file only when taken a whole object set at a time; so a
// stretch can be offloaded only if it is made of whole sets starting at set
// boundaries in both files, and the layouts are equal. Layouts are compared
// field by field, as the kernel client does. The plan is then: a ReadWrite
// head up to the first set boundary, one Offload segment of all whole sets,
// a ReadWrite tail. Empty segments are left out, a plan with no whole set is
// a single ReadWrite segment, and length 0 gives no segments.
//
// The error wraps ErrInvalid for an invalid layout and ErrOverflow when
// srcOff+length or dstOff+length does not fit in a uint64.
func Plan(src Layout, srcOff uint64, dst Layout, dstOff uint64, length uint64) ([]Segment, error) {
	if err := src.Validate(); err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	if err := dst.Validate(); err != nil {
		return nil, fmt.Errorf("destination: %w", err)
	}
	if length > math.MaxUint64-srcOff {
		return nil, fmt.Errorf("%w: source offset %d + length %d", ErrOverflow, srcOff, length)
	}
	if length > math.MaxUint64-dstOff {
		return nil, fmt.Errorf("%w: destination offset %d + length %d", ErrOverflow, dstOff, length)
	}
	if length == 0 {
		return nil, nil
	}
	whole := []Segment{{Kind: ReadWrite, SrcOff: srcOff, DstOff: dstOff, Length: length}}
	size := src.SetSize()
	if src != dst || srcOff%size != dstOff%size {
		return whole, nil
	}
	head := (size - srcOff%size) % size
	if head >= length {
		return whole, nil
	}
	sets := (length - head) / size
	if sets == 0 {
		return whole, nil
	}
	var segs []Segment
	if head > 0 {
		segs = append(segs, Segment{Kind: ReadWrite, SrcOff: srcOff, DstOff: dstOff, Length: head})
	}
	s, d := srcOff+head, dstOff+head
	segs = append(segs, Segment{Kind: Offload, SrcOff: s, DstOff: d, Length: sets * size,
		SrcSet: s / size, DstSet: d / size, Sets: sets})
	if tail := length - head - sets*size; tail > 0 {
		s, d = s+sets*size, d+sets*size
		segs = append(segs, Segment{Kind: ReadWrite, SrcOff: s, DstOff: d, Length: tail})
	}
	return segs, nil
}
