package radoscp

import (
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
)

// Destination is where a copy writes; package truncate has the raw,
// striped and CephFS ones, and truncate/desttest the suite they all pass. The engine asks it for the
// generation to send with every copy-from, publishes the complete prefix
// through it, and asks it to cut back what a failed copy wrote past that.
type Destination interface {
	// Objects is the pool the destination's objects live in.
	Objects() store.Objects
	Layout() layout.Layout
	Names() layout.Namer
	// EOF is the published end of the destination's data, read once when
	// the destination was opened and moved only by Publish.
	EOF() uint64
	// Generation is the truncate generation of the destination as a file:
	// (0, 0) for one never truncated. Each copy-from carries it, with the
	// size mapped onto the object (layout.Layout.ObjectLength), as a
	// client's write to that object would.
	Generation() store.Generation
	// Offloadable reports whether object objectNo may be written by
	// copy-from, which replaces the whole object with its xattrs. Objects
	// that hold the destination's own metadata must be read and written.
	Offloadable(objectNo uint64) bool
	// Publish makes eof the published EOF if it is past the current one;
	// it never shrinks the destination. The engine calls it when no
	// operation is in flight.
	Publish(eof uint64) error
	// Checkpoint records, while operations are in flight, that every byte
	// below eof is in place, so that a copy killed later can be resumed
	// from there. It never shrinks the destination either.
	Checkpoint(eof uint64) error
	// CutBack makes every byte the copy wrote in [from, to) at or past the
	// published EOF unreadable. It touches nothing below the EOF.
	CutBack(from, to uint64) error
	// Held reports nil while the copy may write the destination, and why
	// not once it may not: its copy lock may have expired and been taken
	// by another copy. The engine checks it before every operation it
	// submits, and then submits nothing more; Publish, Checkpoint and
	// CutBack refuse too, so nothing more is written.
	Held() error
	// Close releases what the destination holds (locks).
	Close() error
}
