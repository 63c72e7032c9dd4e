package truncate

import (
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados"
)

// Destination is where a copy writes. The copy engine asks it for the
// generation to send with every copy-from, publishes the complete prefix
// through it, and asks it to cut back what a failed copy wrote past that.
type Destination interface {
	// Objects is the pool the destination's objects live in.
	Objects() rados.Objects
	Layout() layout.Layout
	Names() layout.Namer
	// EOF is the published end of the destination's data, read once when
	// the destination was opened and moved only by Publish.
	EOF() uint64
	// Generation travels with every copy-from into the destination.
	Generation() rados.Generation
	// Offloadable reports whether object objectNo may be written by
	// copy-from, which replaces the whole object with its xattrs. Objects
	// that hold the destination's own metadata must be read and written.
	Offloadable(objectNo uint64) bool
	// Publish makes eof the published EOF if it is past the current one;
	// it never shrinks the destination.
	Publish(eof uint64) error
	// CutBack makes every byte the copy wrote in [from, to) at or past the
	// published EOF unreadable. It touches nothing below the EOF.
	CutBack(from, to uint64) error
	// Close releases what the destination holds (locks).
	Close() error
}
