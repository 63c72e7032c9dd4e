package truncate_test

import (
	"testing"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados/fake"
	"github.com/radoscp/radoscp/truncate"
)

var striped = layout.Layout{StripeUnit: 64 << 10, StripeCount: 3, ObjectSize: 128 << 10}

// fill writes a dense file of size bytes, object by object, so every
// object has exactly the length the layout gives it.
func fill(t *testing.T, p *fake.Pool, l layout.Layout, names layout.Namer, size uint64) {
	t.Helper()
	for obj := range l.ObjectsFor(size) {
		if n := l.ObjectLength(size, obj); n > 0 {
			if err := p.WriteFull(names.ObjectName(obj), make([]byte, n)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestRawCutBackTrimsOnlyPastEOF(t *testing.T) {
	p := fake.New().Pool("a")
	names := layout.Prefix("d")
	set := striped.SetSize()
	fill(t, p, striped, names, 3*set) // a copy that wrote three sets
	eof := set + 100<<10              // published: one set and a bit
	r := truncate.NewRaw(p, striped, "d", 0)
	if err := r.Publish(eof); err != nil {
		t.Fatal(err)
	}
	if err := r.Publish(10); err != nil || r.EOF() != eof {
		t.Fatalf("Publish shrank the EOF to %d (%v)", r.EOF(), err)
	}
	if err := r.CutBack(0, 3*set); err != nil {
		t.Fatal(err)
	}
	for obj := range uint64(9) {
		want := striped.ObjectLength(eof, obj)
		st, err := p.Stat(names.ObjectName(obj))
		switch {
		case want == 0 && err == nil:
			t.Errorf("object %d (nothing below EOF) still exists with %d bytes", obj, st.Size)
		case want > 0 && (err != nil || st.Size != want):
			t.Errorf("object %d: size %d, %v; want %d", obj, st.Size, err, want)
		}
	}
}

func TestRawCutBackLeavesDataBelowEOF(t *testing.T) {
	p := fake.New().Pool("a")
	names := layout.Prefix("d")
	fill(t, p, striped, names, striped.SetSize())
	r := truncate.NewRaw(p, striped, "d", striped.SetSize())
	if err := r.CutBack(0, striped.SetSize()); err != nil {
		t.Fatal(err)
	}
	for obj := range uint64(3) {
		if st, err := p.Stat(names.ObjectName(obj)); err != nil || st.Size != striped.ObjectSize {
			t.Fatalf("object %d below EOF changed: %+v, %v", obj, st, err)
		}
	}
}

// PastEOF finds, in the whole sets a range touches, the lowest object
// holding data past the EOF the set was described with: exactly the
// objects a cut-back from that EOF would change.
func TestRawPastEOF(t *testing.T) {
	p := fake.New().Pool("a")
	names := layout.Prefix("d")
	set := striped.SetSize()
	fill(t, p, striped, names, 2*set+100<<10) // the truth: two sets and a bit
	for _, tc := range []struct {
		eof, from, to uint64
		want          string
	}{
		{2*set + 100<<10, 2 * set, 3 * set, ""}, // the true EOF
		{3 * set, 2 * set, 4 * set, ""},         // more than the truth
		{0, 2 * set, 2*set + 1, "a/d.00000006"}, // the set of the range's start
		{2 * set, 2*set + 200<<10, 3 * set, "a/d.00000006"},
		{2*set + 50<<10, 2 * set, 3 * set, "a/d.00000006"}, // a stripe unit longer than its share
		{0, 3 * set, 5 * set, ""},                          // past the data
		{0, set, set, ""},                                  // an empty range
	} {
		got, err := truncate.NewRaw(p, striped, "d", tc.eof).PastEOF(tc.from, tc.to, 2)
		if err != nil || got != tc.want {
			t.Errorf("EOF %d, [%d, %d): %q, %v; want %q", tc.eof, tc.from, tc.to, got, err, tc.want)
		}
	}
}
