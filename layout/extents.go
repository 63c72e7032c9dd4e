package layout

import "iter"

// Extent is a piece of a file range that lies in one object at consecutive
// offsets of both the file and the object.
type Extent struct {
	ObjectNo  uint64 // object number within the file
	ObjectOff uint64 // offset of the piece in that object
	Length    uint64
	FileOff   uint64 // offset of the piece in the file
}

// Extents yields the pieces of the file range [off, off+length) in file
// order, split exactly where Ceph's Striper::file_to_extents splits: at
// stripe unit boundaries, or, with stripe_count 1, only at object
// boundaries, since consecutive stripe units then share an object. A range
// running past the 64-bit offset space is cut at its end.
func (l Layout) Extents(off, length uint64) iter.Seq[Extent] {
	return func(yield func(Extent) bool) {
		// -off is 2^64-off, the room left in the offset space.
		if off != 0 && length > -off {
			length = -off
		}
		unit := l.StripeUnit
		if l.StripeCount == 1 {
			unit = l.ObjectSize
		}
		for length > 0 {
			n := min(length, unit-off%unit)
			obj, objOff := l.Locate(off)
			if !yield(Extent{ObjectNo: obj, ObjectOff: objOff, Length: n, FileOff: off}) {
				return
			}
			off += n
			length -= n
		}
	}
}
