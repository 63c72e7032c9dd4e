package layout

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestLocateEveryByte checks every byte of each window against the
// brute-force map, both ways. The inverse check also proves the map is
// one-to-one: two bytes sharing an (object, offset) could not both map back.
func TestLocateEveryByte(t *testing.T) {
	for _, l := range testLayouts {
		t.Run(l.String(), func(t *testing.T) {
			t.Parallel()
			locateEveryByte(t, l)
		})
	}
}

func locateEveryByte(t *testing.T, l Layout) {
	for _, w := range testWindows(l) {
		for _, u := range w.units {
			for b := uint64(0); b < l.StripeUnit; b++ {
				off := u.fileOff + b
				obj, objOff := l.Locate(off)
				if obj != u.objectNo || objOff != u.objectOff+b {
					t.Fatalf("Locate(%d) = (%d, %d), want (%d, %d)", off, obj, objOff, u.objectNo, u.objectOff+b)
				}
				if got := l.FileOffset(obj, objOff); got != off {
					t.Fatalf("FileOffset(%d, %d) = %d, want %d", obj, objOff, got, off)
				}
			}
		}
	}
}

// fileSizesAround gives file sizes on and next to every stripe unit
// boundary of the window, and halfway through each unit.
func fileSizesAround(w window) []uint64 {
	var sizes []uint64
	for _, u := range w.units {
		sizes = append(sizes, u.fileOff, u.fileOff+1, u.fileOff+w.l.StripeUnit/2, u.fileOff+w.l.StripeUnit-1)
	}
	if w.start() > 0 {
		sizes = append(sizes, w.start()-1)
	}
	return append(sizes, w.last(), w.last()+1)
}

// TestObjectLengthAndObjectsFor checks, for file sizes ending on and near
// every stripe unit boundary of each window, the length of every object of
// the window against the brute-force map, and that every object of earlier
// sets is full.
func TestObjectLengthAndObjectsFor(t *testing.T) {
	for _, l := range testLayouts {
		for _, w := range testWindows(l) {
			firstObj := w.firstSet * l.StripeCount
			endObj := w.units[len(w.units)-1].objectNo + 1
			for _, size := range fileSizesAround(w) {
				if size == 0 && w.start() > 0 {
					continue // w.last()+1 wrapped: a file cannot end past 2^64-1
				}
				want := w.objectLengths(size)
				highest := uint64(0)
				for obj := firstObj; obj < endObj+l.StripeCount; obj++ {
					if got := l.ObjectLength(size, obj); got != want[obj] {
						t.Fatalf("%v: ObjectLength(%d, %d) = %d, want %d", l, size, obj, got, want[obj])
					}
					if want[obj] > 0 {
						highest = obj + 1
					}
				}
				if size < w.start() {
					continue // the window shows nothing of where such a file ends
				}
				for _, obj := range []uint64{0, firstObj / 2, firstObj - 1} {
					if firstObj > 0 && l.ObjectLength(size, obj) != l.ObjectSize {
						t.Fatalf("%v: ObjectLength(%d, %d) = %d, want %d", l, size, obj, l.ObjectLength(size, obj), l.ObjectSize)
					}
				}
				if highest == 0 {
					highest = firstObj // the file ends exactly where the window starts
				}
				if got := l.ObjectsFor(size); got != highest {
					t.Fatalf("%v: ObjectsFor(%d) = %d, want %d", l, size, got, highest)
				}
			}
		}
	}
}

func TestObjectLengthFarObject(t *testing.T) {
	l := Layout{StripeUnit: 64 * KiB, StripeCount: 3, ObjectSize: 256 * KiB}
	for _, obj := range []uint64{math.MaxUint64, math.MaxUint64 / 2, 1 << 62} {
		if got := l.ObjectLength(10*MiB, obj); got != 0 {
			t.Errorf("ObjectLength(10 MiB, %d) = %d, want 0", obj, got)
		}
		if got := l.ObjectLength(math.MaxUint64, obj); got > l.ObjectSize {
			t.Errorf("ObjectLength(max, %d) = %d, more than an object", obj, got)
		}
	}
}

func TestValidate(t *testing.T) {
	const big = 1 << 32
	for _, tc := range []struct {
		l    Layout
		want string // "" for valid
	}{
		{Layout{4 * MiB, 1, 4 * MiB}, ""},
		{Layout{64 * KiB, 3, 256 * KiB}, ""},
		{Layout{64 * KiB, 1, 4 * MiB}, ""},
		{Layout{big - 64*KiB, big - 1, big - 64*KiB}, ""},
		{Layout{0, 1, 4 * MiB}, "invalid layout: stripe_unit 0 is not positive"},
		{Layout{1000, 1, 4 * MiB}, "invalid layout: stripe_unit 1000 is not a multiple of 65536"},
		{Layout{4096, 16, 1 * MiB}, "invalid layout: stripe_unit 4096 is not a multiple of 65536"},
		{Layout{big, 1, big}, "invalid layout: stripe_unit 4294967296 exceeds 4294967295, Ceph's 32-bit limit"},
		{Layout{4 * MiB, 0, 4 * MiB}, "invalid layout: stripe_count 0 is less than 1"},
		{Layout{4 * MiB, big, 4 * MiB}, "invalid layout: stripe_count 4294967296 exceeds 4294967295, Ceph's 32-bit limit"},
		{Layout{4 * MiB, 1, 0}, "invalid layout: object_size 0 is not positive"},
		{Layout{64 * KiB, 1, big}, "invalid layout: object_size 4294967296 exceeds 4294967295, Ceph's 32-bit limit"},
		{Layout{4 * MiB, 1, 2 * MiB}, "invalid layout: object_size 2097152 is not a multiple of stripe_unit 4194304"},
		{Layout{128 * KiB, 2, 192 * KiB}, "invalid layout: object_size 196608 is not a multiple of stripe_unit 131072"},
		{Layout{}, "invalid layout: stripe_unit 0 is not positive"},
	} {
		err := tc.l.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: Validate() = %v, want nil", tc.l, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("%v: Validate() = %v, want %q", tc.l, err, tc.want)
		case err != nil && !errors.Is(err, ErrInvalid):
			t.Errorf("%v: Validate() = %v, does not wrap ErrInvalid", tc.l, err)
		}
	}
}

func TestStringParse(t *testing.T) {
	l := Layout{StripeUnit: 4194304, StripeCount: 1, ObjectSize: 4194304}
	if got, want := l.String(), "stripe_unit=4194304 stripe_count=1 object_size=4194304"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	// The vxattr as CephFS returns it, pool included.
	got, err := Parse("stripe_unit=4194304 stripe_count=1 object_size=4194304 pool=cephfs_data")
	if err != nil || got != l {
		t.Errorf("Parse(vxattr) = %v, %v, want %v", got, err, l)
	}
	for _, l := range testLayouts {
		if got, err := Parse(l.String()); err != nil || got != l {
			t.Errorf("Parse(%q) = %v, %v", l.String(), got, err)
		}
	}
	for _, bad := range []string{
		"",
		"stripe_unit=65536 stripe_count=1",
		"stripe_unit=65536 stripe_count=1 object_size=65536 object_size=65536",
		"stripe_unit=65536 stripe_count=-1 object_size=65536",
		"stripe_unit=65536 stripe_count=1 object_size",
		"stripe_unit=1000 stripe_count=1 object_size=65536",
	} {
		if l, err := Parse(bad); err == nil || !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q) = %v, %v, want an ErrInvalid error", bad, l, err)
		}
	}
}

func TestSetSizeLargest(t *testing.T) {
	l := Layout{StripeUnit: 1<<32 - 64*KiB, StripeCount: 1<<32 - 1, ObjectSize: 1<<32 - 64*KiB}
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := l.SetSize(); got/l.StripeCount != l.ObjectSize {
		t.Fatalf("SetSize() = %d overflowed", got)
	}
	// Round trips at the end of the offset space for the largest layout.
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		off := math.MaxUint64 - r.Uint64N(1<<40)
		if obj, objOff := l.Locate(off); l.FileOffset(obj, objOff) != off {
			t.Fatalf("round trip of %d via (%d, %d) failed", off, obj, objOff)
		}
	}
}

func ExampleLayout_Locate() {
	l := Layout{StripeUnit: 64 * KiB, StripeCount: 3, ObjectSize: 256 * KiB}
	obj, off := l.Locate(200 * KiB)
	fmt.Println(obj, off)
	// Output: 0 73728
}
