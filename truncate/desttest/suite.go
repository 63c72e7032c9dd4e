package desttest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
)

// Subject is one destination kind under test.
type Subject struct {
	// Layout is the destination's layout; the suite copies four object
	// sets into it.
	Layout layout.Layout
	// New opens a new, empty destination; each sequence gets its own.
	New func(t *testing.T) radoscp.Destination
	// Reopen opens the destination d again, as a resumed copy does, with
	// limit the source's size. Nil for kinds that keep no record (raw).
	Reopen func(t *testing.T, d radoscp.Destination, limit uint64) radoscp.Destination
	// Visible reads the destination's size as a reader that is not the
	// destination under test sees it (another client). Nil for kinds
	// with no size of their own (raw).
	Visible func(t *testing.T, d radoscp.Destination) uint64
	// Records says that Checkpoint records an EOF a reopen resumes from;
	// Publishes that it also publishes it.
	Records, Publishes bool
	// Trims says that a cut-back shortens or removes the objects past
	// the EOF, which the suite then checks object by object (a CephFS
	// file's objects are trimmed by the MDS in the background instead:
	// its reader sees the size).
	Trims bool
}

// step is one call on the destination.
type step struct {
	op       string // checkpoint, publish, cutback, reopen
	eof, end uint64 // in object sets; end for cutback
}

// sequences is the table: every order in which the engine and fscopy call
// a destination, and those timing can produce (a checkpoint on the last
// operation, one equal to the final size, a failure after a checkpoint).
var sequences = []struct {
	name  string
	steps []step
}{
	{"publish the whole", []step{{op: "publish", eof: 4}}},
	{"checkpoint at the last operation", []step{{op: "checkpoint", eof: 4}, {op: "publish", eof: 4}}},
	{"checkpoints grow, then publish", []step{{op: "checkpoint", eof: 1}, {op: "checkpoint", eof: 3}, {op: "publish", eof: 4}}},
	{"equal and shrinking EOFs", []step{{op: "publish", eof: 2}, {op: "publish", eof: 2}, {op: "publish", eof: 1},
		{op: "checkpoint", eof: 1}, {op: "publish", eof: 4}}},
	{"failure after a checkpoint", []step{{op: "checkpoint", eof: 2}, {op: "cutback", end: 4}}},
	{"failure after a publish", []step{{op: "checkpoint", eof: 1}, {op: "publish", eof: 2}, {op: "cutback", end: 4}}},
	{"failure before anything", []step{{op: "cutback", end: 4}}},
	{"cut back inside the EOF", []step{{op: "publish", eof: 3}, {op: "cutback", end: 2}}},
	{"resume after a checkpoint", []step{{op: "checkpoint", eof: 3}, {op: "reopen"}, {op: "publish", eof: 4}}},
	{"resume after a failure", []step{{op: "publish", eof: 1}, {op: "cutback", end: 4}, {op: "reopen"}, {op: "publish", eof: 4}}},
	{"resume of a complete copy", []step{{op: "checkpoint", eof: 4}, {op: "publish", eof: 4}, {op: "reopen"}, {op: "publish", eof: 4}}},
	{"checkpoint after a cut-back", []step{{op: "checkpoint", eof: 2}, {op: "cutback", end: 4}, {op: "checkpoint", eof: 3},
		{op: "publish", eof: 4}}},
}

// model is what the destination should say after each step.
type model struct{ published, recorded uint64 }

func (m *model) apply(s Subject, st step, set uint64) {
	eof := st.eof * set
	switch st.op {
	case "checkpoint":
		if s.Records {
			m.recorded = max(m.recorded, eof)
		}
		if s.Publishes {
			m.published = max(m.published, eof)
		}
	case "publish":
		m.published = max(m.published, eof)
		m.recorded = max(m.recorded, eof)
	case "cutback":
		// What is recorded is in place; a cut-back makes it the size.
		m.published = max(m.published, m.recorded)
	case "reopen":
		m.published = max(m.published, m.recorded)
	}
}

// Run runs every sequence against s. objs is the pool the destination's
// objects are in, written directly (as copy-from writes them) before each
// sequence, so that cut-backs have something to cut.
func Run(t *testing.T, s Subject, objs store.Objects) {
	set := s.Layout.SetSize()
	size := 4 * set
	for _, seq := range sequences {
		if s.Reopen == nil && reopens(seq.steps) {
			continue // nothing to reopen from: not this kind's sequence
		}
		t.Run(seq.name, func(t *testing.T) {
			d := s.New(t)
			defer func() { d.Close() }()
			names := d.Names()
			// The copy's objects, all but object 0 (which holds a
			// destination's metadata and goes through the client).
			for obj := uint64(1); obj < s.Layout.ObjectsFor(size); obj++ {
				buf := make([]byte, s.Layout.ObjectLength(size, obj))
				for i := range buf {
					buf[i] = byte(obj)
				}
				if err := objs.WriteFull(names.ObjectName(obj), buf); err != nil {
					t.Fatal(err)
				}
			}
			var m model
			for i, st := range seq.steps {
				m.apply(s, st, set)
				var err error
				switch st.op {
				case "checkpoint":
					err = d.Checkpoint(st.eof * set)
				case "publish":
					err = d.Publish(st.eof * set)
				case "cutback":
					err = d.CutBack(0, st.end*set)
				case "reopen":
					d.Close()
					d = s.Reopen(t, d, size)
				}
				where := fmt.Sprintf("step %d (%s %d)", i, st.op, max(st.eof, st.end))
				if err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				if d.EOF() != m.published {
					t.Fatalf("%s: EOF() = %d, want %d", where, d.EOF(), m.published)
				}
				if s.Visible != nil {
					if got := s.Visible(t, d); got != m.published {
						t.Fatalf("%s: a reader sees %d bytes, but %d were published", where, got, m.published)
					}
				}
				if st.op == "cutback" && s.Trims {
					checkTrimmed(t, where, s.Layout, objs, names, m.published, st.end*set)
				}
			}
		})
	}
}

func reopens(steps []step) bool {
	for _, st := range steps {
		if st.op == "reopen" {
			return true
		}
	}
	return false
}

// checkTrimmed checks that no object of the cut range [0, end) holds data
// at or past eof.
func checkTrimmed(t *testing.T, where string, l layout.Layout, objs store.Objects, names layout.Namer, eof, end uint64) {
	t.Helper()
	for obj := uint64(1); obj < l.ObjectsFor(end); obj++ {
		want := l.ObjectLength(eof, obj)
		st, err := objs.Stat(names.ObjectName(obj))
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			t.Fatal(err)
		case st.Size > want:
			t.Fatalf("%s: object %d holds %d bytes past EOF %d, where a file of that size has %d", where, obj, st.Size, eof, want)
		}
	}
}
