package layout

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// fuzzLayout builds a layout from small numbers so that most fuzz inputs
// are legal: su in 64 KiB units, stripes per object.
func fuzzLayout(suUnits uint16, sc uint32, spo uint16) Layout {
	su := uint64(suUnits) * MinStripeUnit
	return Layout{StripeUnit: su, StripeCount: uint64(sc), ObjectSize: su * uint64(spo)}
}

func FuzzExtents(f *testing.F) {
	f.Add(uint16(1), uint32(3), uint16(4), uint64(200*KiB), uint64(1*MiB))
	f.Add(uint16(64), uint32(1), uint16(1), uint64(0), uint64(9*MiB))
	f.Add(uint16(1), uint32(1), uint16(64), uint64(math.MaxUint64-5), uint64(100))
	f.Add(uint16(math.MaxUint16), uint32(math.MaxUint32), uint16(1), uint64(1<<63), uint64(1<<40))
	f.Fuzz(func(t *testing.T, suUnits uint16, sc uint32, spo uint16, off, length uint64) {
		l := fuzzLayout(suUnits, sc, spo)
		if l.Validate() != nil {
			return
		}
		unit := splitUnit(l)
		// Bound the work, not the shape: at most 64 extents.
		length %= 64*unit + 1
		next, total := off, uint64(0)
		for e := range l.Extents(off, length) {
			if e.FileOff != next || e.Length == 0 || e.Length > unit || e.FileOff%unit+e.Length > unit {
				t.Fatalf("%v: Extents(%d, %d): bad extent %+v after %d", l, off, length, e, next)
			}
			if e.ObjectOff+e.Length > l.ObjectSize {
				t.Fatalf("%v: Extents(%d, %d): %+v runs past its object", l, off, length, e)
			}
			for _, b := range []uint64{0, e.Length / 2, e.Length - 1} {
				obj, objOff := l.Locate(e.FileOff + b)
				if obj != e.ObjectNo || objOff != e.ObjectOff+b {
					t.Fatalf("%v: %+v: Locate(%d) = (%d, %d)", l, e, e.FileOff+b, obj, objOff)
				}
				if got := l.FileOffset(obj, objOff); got != e.FileOff+b {
					t.Fatalf("%v: FileOffset(Locate(%d)) = %d", l, e.FileOff+b, got)
				}
			}
			next, total = e.FileOff+e.Length, total+e.Length
		}
		want := length
		if off != 0 && length > -off {
			want = -off
		}
		if total != want {
			t.Fatalf("%v: Extents(%d, %d) covered %d bytes, want %d", l, off, length, total, want)
		}
		// ObjectLength of the object holding the last byte of a file
		// ending at off+1 reaches exactly that byte.
		obj, objOff := l.Locate(off)
		if got := l.ObjectLength(off+1, obj); off != math.MaxUint64 && got != objOff+1 {
			t.Fatalf("%v: ObjectLength(%d, %d) = %d, want %d", l, off+1, obj, got, objOff+1)
		}
		if off != math.MaxUint64 && l.ObjectsFor(off+1) <= obj {
			t.Fatalf("%v: ObjectsFor(%d) = %d, but byte %d is in object %d", l, off+1, l.ObjectsFor(off+1), off, obj)
		}
	})
}

func FuzzPlan(f *testing.F) {
	f.Add(uint16(64), uint32(1), uint16(1), uint16(64), uint32(1), uint16(1), true, uint64(0), uint64(0), uint64(10*MiB))
	f.Add(uint16(1), uint32(3), uint16(4), uint16(1), uint32(3), uint16(4), true, uint64(100), uint64(768*KiB+100), uint64(3*MiB))
	f.Add(uint16(1), uint32(3), uint16(4), uint16(2), uint32(3), uint16(2), false, uint64(0), uint64(0), uint64(3*MiB))
	f.Add(uint16(1), uint32(1), uint16(1), uint16(1), uint32(1), uint16(1), true, uint64(math.MaxUint64), uint64(0), uint64(2))
	f.Fuzz(func(t *testing.T, su1 uint16, sc1 uint32, spo1 uint16, su2 uint16, sc2 uint32, spo2 uint16, same bool, srcOff, dstOff, length uint64) {
		src, dst := fuzzLayout(su1, sc1, spo1), fuzzLayout(su2, sc2, spo2)
		if same {
			dst = src
		}
		segs, err := Plan(src, srcOff, dst, dstOff, length)
		invalid := src.Validate() != nil || dst.Validate() != nil
		overflow := length > math.MaxUint64-srcOff || length > math.MaxUint64-dstOff
		switch {
		case invalid != errors.Is(err, ErrInvalid):
			t.Fatalf("Plan(%v, %v) = %v, layouts valid: %v", src, dst, err, !invalid)
		case !invalid && overflow != errors.Is(err, ErrOverflow):
			t.Fatalf("Plan(%d, %d, %d) = %v, overflow: %v", srcOff, dstOff, length, err, overflow)
		case err != nil:
			return
		}
		checkPlan(t, src, srcOff, dst, dstOff, length, segs)
	})
}

// cephValid is file_layout_t::is_valid as Ceph writes it, with bit masks,
// plus the 32-bit field limit.
func cephValid(l Layout) bool {
	if l.StripeUnit > math.MaxUint32 || l.StripeCount > math.MaxUint32 || l.ObjectSize > math.MaxUint32 {
		return false
	}
	if l.StripeUnit == 0 || l.StripeUnit&(MinStripeUnit-1) != 0 {
		return false
	}
	if l.ObjectSize == 0 || l.ObjectSize&(MinStripeUnit-1) != 0 {
		return false
	}
	if l.ObjectSize < l.StripeUnit || l.ObjectSize%l.StripeUnit != 0 {
		return false
	}
	return l.StripeCount != 0
}

func FuzzValidate(f *testing.F) {
	f.Add(uint64(4*MiB), uint64(1), uint64(4*MiB))
	f.Add(uint64(1000), uint64(1), uint64(4*MiB))
	f.Add(uint64(64*KiB), uint64(3), uint64(192*KiB))
	f.Add(uint64(1<<32), uint64(1), uint64(1<<32))
	f.Add(uint64(0), uint64(0), uint64(0))
	f.Fuzz(func(t *testing.T, su, sc, os uint64) {
		l := Layout{StripeUnit: su, StripeCount: sc, ObjectSize: os}
		err := l.Validate()
		if (err == nil) != cephValid(l) {
			t.Fatalf("%v: Validate() = %v, Ceph says valid: %v", l, err, cephValid(l))
		}
		if err != nil {
			msg := err.Error()
			if !errors.Is(err, ErrInvalid) || !strings.HasPrefix(msg, "invalid layout: ") ||
				!(strings.Contains(msg, "stripe_unit ") || strings.Contains(msg, "stripe_count ") || strings.Contains(msg, "object_size ")) {
				t.Fatalf("%v: error %q does not name a field", l, msg)
			}
			if _, perr := Parse(l.String()); perr == nil {
				t.Fatalf("Parse(%q) accepted an invalid layout", l.String())
			}
			return
		}
		if got, err := Parse(l.String()); err != nil || got != l {
			t.Fatalf("Parse(%q) = %v, %v", l.String(), got, err)
		}
		if l.SetSize()/l.StripeCount != l.ObjectSize {
			t.Fatalf("%v: SetSize %d overflowed", l, l.SetSize())
		}
		for _, off := range []uint64{0, su - 1, su, l.SetSize() - 1, l.SetSize(), math.MaxUint64} {
			if obj, objOff := l.Locate(off); objOff >= l.ObjectSize || l.FileOffset(obj, objOff) != off {
				t.Fatalf("%v: Locate(%d) = (%d, %d) does not map back", l, off, obj, objOff)
			}
		}
		if n := l.ObjectsFor(math.MaxUint64); n == 0 || l.ObjectLength(math.MaxUint64, n-1) == 0 {
			t.Fatalf("%v: ObjectsFor(max) = %d", l, n)
		}
	})
}
