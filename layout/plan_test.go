package layout

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestPlan(t *testing.T) {
	l := Layout{StripeUnit: 4 * MiB, StripeCount: 1, ObjectSize: 4 * MiB}
	st := Layout{StripeUnit: 64 * KiB, StripeCount: 3, ObjectSize: 256 * KiB}
	const S = 4 * MiB
	const T = 768 * KiB // st.SetSize()
	rw := func(src, dst, n uint64) Segment {
		return Segment{Kind: ReadWrite, SrcOff: src, DstOff: dst, Length: n}
	}
	off := func(l Layout, src, dst, n uint64) Segment {
		z := l.SetSize()
		return Segment{Kind: Offload, SrcOff: src, DstOff: dst, Length: n, SrcSet: src / z, DstSet: dst / z, Sets: n / z}
	}
	for _, tc := range []struct {
		name           string
		src            Layout
		srcOff         uint64
		dst            Layout
		dstOff, length uint64
		want           []Segment
	}{
		{"empty", l, 0, l, 0, 0, nil},
		{"one set", l, 0, l, 0, S, []Segment{off(l, 0, 0, S)}},
		{"sets and tail", l, 0, l, 0, 3*S + 5, []Segment{off(l, 0, 0, 3*S), rw(3*S, 3*S, 5)}},
		{"head sets tail", l, S - 10, l, 2*S - 10, 2*S + 20,
			[]Segment{rw(S-10, 2*S-10, 10), off(l, S, 2*S, 2*S), rw(3*S, 4*S, 10)}},
		{"head and sets", l, 2*S - 1, l, 5*S - 1, S + 1, []Segment{rw(2*S-1, 5*S-1, 1), off(l, 2*S, 5*S, S)}},
		{"less than a set", l, 0, l, 0, S - 1, []Segment{rw(0, 0, S-1)}},
		{"crosses a boundary, no whole set", l, S / 2, l, S / 2, S, []Segment{rw(S/2, S/2, S)}},
		{"misaligned", l, 0, l, 1, 10 * S, []Segment{rw(0, 1, 10*S)}},
		{"different layouts", l, 0, st, 0, 10 * S, []Segment{rw(0, 0, 10*S)}},
		{"same placement, different stripe unit", l, 0,
			Layout{StripeUnit: 64 * KiB, StripeCount: 1, ObjectSize: 4 * MiB}, 0, S, []Segment{rw(0, 0, S)}},
		{"striped sets", st, T + 100, st, 4*T + 100, 3 * T,
			[]Segment{rw(T+100, 4*T+100, T-100), off(st, 2*T, 5*T, 2*T), rw(4*T, 7*T, 100)}},
		{"striped, object-aligned but not set-aligned", st, 256 * KiB, st, 256 * KiB, 2 * T,
			[]Segment{rw(256*KiB, 256*KiB, T-256*KiB), off(st, T, T, T), rw(2*T, 2*T, 256*KiB)}},
		{"end at 2^64-1", l, math.MaxUint64 - S, l, math.MaxUint64 - S, S,
			[]Segment{rw(math.MaxUint64-S, math.MaxUint64-S, S)}},
	} {
		got, err := Plan(tc.src, tc.srcOff, tc.dst, tc.dstOff, tc.length)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: Plan = %+v, %v\nwant %+v", tc.name, got, err, tc.want)
		}
	}
}

func TestPlanErrors(t *testing.T) {
	l := Layout{StripeUnit: 4 * MiB, StripeCount: 1, ObjectSize: 4 * MiB}
	bad := Layout{StripeUnit: 1000, StripeCount: 1, ObjectSize: 4 * MiB}
	for _, tc := range []struct {
		src, dst               Layout
		srcOff, dstOff, length uint64
		is                     error
		want                   string
	}{
		{bad, l, 0, 0, 1, ErrInvalid, "source: invalid layout: stripe_unit 1000 is not a multiple of 65536"},
		{l, Layout{}, 0, 0, 1, ErrInvalid, "destination: invalid layout: stripe_unit 0 is not positive"},
		{l, l, math.MaxUint64, 0, 2, ErrOverflow, "range end overflows uint64: source offset 18446744073709551615 + length 2"},
		{l, l, 0, 10, math.MaxUint64 - 9, ErrOverflow, "range end overflows uint64: destination offset 10 + length 18446744073709551606"},
		// An invalid layout is reported even for an empty copy.
		{l, bad, 0, 0, 0, ErrInvalid, "destination: invalid layout: stripe_unit 1000 is not a multiple of 65536"},
	} {
		segs, err := Plan(tc.src, tc.srcOff, tc.dst, tc.dstOff, tc.length)
		if err == nil || err.Error() != tc.want || !errors.Is(err, tc.is) || segs != nil {
			t.Errorf("Plan(%v, %d, %v, %d, %d) = %v, %v, want error %q", tc.src, tc.srcOff, tc.dst, tc.dstOff, tc.length, segs, err, tc.want)
		}
	}
}

// checkPlan checks the properties every plan must have, whatever the
// inputs: segments tile the range in order; each offload segment is whole
// sets aligned in both files with equal layouts, its object pairs hold the
// same bytes at the same offsets; and as many bytes are offloaded as the
// alignment allows.
func checkPlan(t *testing.T, src Layout, srcOff uint64, dst Layout, dstOff, length uint64, segs []Segment) {
	t.Helper()
	s, d, total := srcOff, dstOff, uint64(0)
	var offloaded uint64
	for i, seg := range segs {
		if seg.SrcOff != s || seg.DstOff != d || seg.Length == 0 {
			t.Fatalf("segment %d %+v does not continue at (%d, %d): %+v", i, seg, s, d, segs)
		}
		if i > 0 && seg.Kind == segs[i-1].Kind {
			t.Fatalf("segments %d and %d are both %v: %+v", i-1, i, seg.Kind, segs)
		}
		switch seg.Kind {
		case ReadWrite:
			if seg.SrcSet != 0 || seg.DstSet != 0 || seg.Sets != 0 {
				t.Fatalf("read-write segment %+v has sets", seg)
			}
		case Offload:
			z := src.SetSize()
			if src != dst || seg.SrcOff%z != 0 || seg.DstOff%z != 0 || seg.Length != seg.Sets*z ||
				seg.SrcSet != seg.SrcOff/z || seg.DstSet != seg.DstOff/z {
				t.Fatalf("offload segment %+v is not whole sets aligned in both files of %v", seg, src)
			}
			checkOffloadObjects(t, src, seg)
			offloaded += seg.Length
		default:
			t.Fatalf("segment %+v has kind %v", seg, seg.Kind)
		}
		s, d, total = s+seg.Length, d+seg.Length, total+seg.Length
	}
	if total != length {
		t.Fatalf("plan covers %d bytes of %d: %+v", total, length, segs)
	}
	// Whole sets of the source range, worked out from its first and last
	// set boundary rather than from a head length.
	var want uint64
	if z := src.SetSize(); src == dst && srcOff%z == dstOff%z && length > 0 {
		first := srcOff / z
		if srcOff%z != 0 {
			first++
		}
		last := (srcOff + length) / z
		if last > first {
			want = (last - first) * z
		}
	}
	if offloaded != want {
		t.Fatalf("offloaded %d bytes, want %d: %+v", offloaded, want, segs)
	}
}

// checkOffloadObjects samples bytes of an offload segment: the byte at the
// same distance into both ranges must land at the same offset of objects
// the segment pairs with each other, and only once (object i of the pair).
func checkOffloadObjects(t *testing.T, l Layout, seg Segment) {
	t.Helper()
	for _, at := range []uint64{0, 1, l.StripeUnit, l.StripeUnit*l.StripeCount - 1, l.SetSize(), seg.Length / 2, seg.Length - 1} {
		if at >= seg.Length {
			continue
		}
		so, soff := l.Locate(seg.SrcOff + at)
		do, doff := l.Locate(seg.DstOff + at)
		i := so - seg.SrcSet*l.StripeCount
		if soff != doff || i >= seg.Objects(l) {
			t.Fatalf("%+v: byte %d at src (%d, %d), dst (%d, %d)", seg, at, so, soff, do, doff)
		}
		if gs, gd := seg.Object(l, i); gs != so || gd != do {
			t.Fatalf("%+v: Object(%d) = (%d, %d), want (%d, %d)", seg, i, gs, gd, so, do)
		}
	}
	if n := seg.Objects(l); n != seg.Sets*l.StripeCount {
		t.Fatalf("%+v: Objects = %d", seg, n)
	}
	for _, i := range []uint64{0, seg.Objects(l) - 1} {
		s, d := seg.Object(l, i)
		if l.ObjectLength(seg.SrcOff+seg.Length, s) != l.ObjectSize || l.FileOffset(s, 0) < seg.SrcOff ||
			l.FileOffset(d, 0)-seg.DstOff != l.FileOffset(s, 0)-seg.SrcOff {
			t.Fatalf("%+v: object %d = (%d, %d) is not a whole object of the segment", seg, i, s, d)
		}
	}
}

func TestPlanProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		src := testLayouts[r.IntN(len(testLayouts))]
		dst := src
		if r.IntN(4) == 0 {
			dst = testLayouts[r.IntN(len(testLayouts))]
		}
		z := src.SetSize()
		// Offsets near set boundaries, so aligned plans are common.
		pick := func() uint64 {
			switch r.IntN(3) {
			case 0:
				return r.Uint64N(1<<40)*z + r.Uint64N(3)*src.StripeUnit
			case 1:
				return r.Uint64N(1<<40)*z + z - r.Uint64N(100)
			}
			return r.Uint64N(1 << 50)
		}
		srcOff, dstOff := pick(), pick()
		if r.IntN(2) == 0 {
			dstOff = srcOff%z + r.Uint64N(1<<30)*z
		}
		length := r.Uint64N(10 * z)
		segs, err := Plan(src, srcOff, dst, dstOff, length)
		if err != nil {
			t.Fatal(err)
		}
		checkPlan(t, src, srcOff, dst, dstOff, length, segs)
	}
}

func TestSegmentObjectPanics(t *testing.T) {
	l := Layout{StripeUnit: 64 * KiB, StripeCount: 3, ObjectSize: 256 * KiB}
	for _, seg := range []Segment{
		{Kind: ReadWrite, Length: 10},
		{Kind: Offload, Length: l.SetSize(), Sets: 1},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%+v: Object(3) did not panic", seg)
				}
			}()
			seg.Object(l, 3)
		}()
	}
}
