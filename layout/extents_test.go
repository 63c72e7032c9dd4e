package layout

import (
	"math"
	"math/rand/v2"
	"testing"
)

// splitUnit is where Ceph's Striper::file_to_extents cuts a range.
func splitUnit(l Layout) uint64 {
	if l.StripeCount == 1 {
		return l.ObjectSize
	}
	return l.StripeUnit
}

// checkExtents checks that the extents of [off, off+length) tile it in
// order, are cut only and always at Ceph's split points, and that each maps
// byte for byte as the brute-force window does.
func checkExtents(t *testing.T, w window, off, length uint64) {
	t.Helper()
	l := w.l
	next, total := off, uint64(0)
	for e := range l.Extents(off, length) {
		if e.FileOff != next || e.Length == 0 {
			t.Fatalf("%v: Extents(%d, %d): %+v does not continue at %d", l, off, length, e, next)
		}
		u := splitUnit(l)
		end := e.FileOff + e.Length
		if e.FileOff/u != (end-1)/u || (end%u != 0 && end != off+length) {
			t.Fatalf("%v: Extents(%d, %d): %+v not cut at multiples of %d", l, off, length, e, u)
		}
		// Walk the brute-force units the extent overlaps: each must be in
		// the same object, at the matching offset.
		for b := e.FileOff; b < end; {
			obj, objOff := w.locate(b)
			if obj != e.ObjectNo || objOff != e.ObjectOff+(b-e.FileOff) {
				t.Fatalf("%v: Extents(%d, %d): %+v: byte %d is at (%d, %d)", l, off, length, e, b, obj, objOff)
			}
			b = (b/l.StripeUnit + 1) * l.StripeUnit
		}
		if obj, objOff := w.locate(end - 1); obj != e.ObjectNo || objOff != e.ObjectOff+e.Length-1 {
			t.Fatalf("%v: Extents(%d, %d): %+v: last byte is at (%d, %d)", l, off, length, e, obj, objOff)
		}
		next, total = end, total+e.Length
	}
	if total != length {
		t.Fatalf("%v: Extents(%d, %d) covered %d bytes", l, off, length, total)
	}
}

func TestExtents(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, l := range testLayouts {
		for _, w := range testWindows(l) {
			span := w.last() - w.start() + 1
			u := l.StripeUnit
			s := w.start()
			cases := [][2]uint64{{s, 0}, {s, 1}, {s, u}, {s, u + 1}, {s + u - 1, 2}, {s, span}, {s + 1, span - 1}, {s + u, span - 2*u}}
			for range 200 {
				o := r.Uint64N(span)
				cases = append(cases, [2]uint64{s + o, r.Uint64N(span-o) + 1})
			}
			for _, c := range cases {
				if c[1] > span || c[0]-s > span-c[1] {
					continue // the brute force knows only the window
				}
				checkExtents(t, w, c[0], c[1])
			}
		}
	}
}

func TestExtentsStripeCountOneMerges(t *testing.T) {
	// Ceph takes the stripe unit as the object size when stripe_count is 1,
	// so a whole object is one extent however small the stripe unit.
	l := Layout{StripeUnit: 64 * KiB, StripeCount: 1, ObjectSize: 4 * MiB}
	var got []Extent
	for e := range l.Extents(1*MiB, 4*MiB) {
		got = append(got, e)
	}
	want := []Extent{{0, 1 * MiB, 3 * MiB, 1 * MiB}, {1, 0, 1 * MiB, 4 * MiB}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("Extents = %+v, want %+v", got, want)
	}
}

func TestExtentsEndOfOffsetSpace(t *testing.T) {
	l := Layout{StripeUnit: 64 * KiB, StripeCount: 3, ObjectSize: 256 * KiB}
	var total uint64
	var last Extent
	for e := range l.Extents(math.MaxUint64-10, 100) {
		total += e.Length
		last = e
	}
	if total != 11 || last.FileOff+last.Length != 0 {
		t.Fatalf("covered %d bytes ending at %d, want 11 ending at 2^64", total, last.FileOff+last.Length)
	}
	// A near-infinite range must stop when the consumer does.
	n := 0
	for range l.Extents(0, math.MaxUint64) {
		if n++; n == 5 {
			break
		}
	}
}

func BenchmarkExtents(b *testing.B) {
	for _, l := range []Layout{
		{StripeUnit: 4 * MiB, StripeCount: 1, ObjectSize: 4 * MiB},
		{StripeUnit: 64 * KiB, StripeCount: 3, ObjectSize: 256 * KiB},
	} {
		b.Run(l.String(), func(b *testing.B) {
			const length = 1 << 30
			b.SetBytes(length)
			for b.Loop() {
				var n uint64
				for e := range l.Extents(12345, length) {
					n += e.ObjectNo
				}
				if n == 0 {
					b.Fatal("no extents")
				}
			}
		})
	}
}
