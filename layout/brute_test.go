package layout

import (
	"math"
	"sort"
)

const (
	KiB = 1 << 10
	MiB = 1 << 20
)

// testLayouts are legal layouts chosen to differ in every ratio the
// arithmetic depends on: one or many stripe units per object, one or many
// objects per set, odd stripe counts, a stripe unit that is not a power of 2.
var testLayouts = []Layout{
	{StripeUnit: 64 * KiB, StripeCount: 1, ObjectSize: 64 * KiB},
	{StripeUnit: 64 * KiB, StripeCount: 1, ObjectSize: 256 * KiB},
	{StripeUnit: 64 * KiB, StripeCount: 2, ObjectSize: 128 * KiB},
	{StripeUnit: 64 * KiB, StripeCount: 3, ObjectSize: 256 * KiB},
	{StripeUnit: 64 * KiB, StripeCount: 3, ObjectSize: 64 * KiB},
	{StripeUnit: 64 * KiB, StripeCount: 7, ObjectSize: 448 * KiB},
	{StripeUnit: 128 * KiB, StripeCount: 3, ObjectSize: 384 * KiB},
	{StripeUnit: 192 * KiB, StripeCount: 2, ObjectSize: 576 * KiB},
	{StripeUnit: 256 * KiB, StripeCount: 4, ObjectSize: 1 * MiB},
	{StripeUnit: 4 * MiB, StripeCount: 1, ObjectSize: 4 * MiB},
}

// unit is one stripe unit of a file as the brute-force mapper sees it.
type unit struct{ fileOff, objectNo, objectOff uint64 }

// walkUnits lists the stripe units of object sets [firstSet, firstSet+sets)
// by drawing the striping picture row by row: within a set, each stripe
// puts one unit in each of its objects in turn. Unlike the code under test
// it never divides, so the two cannot share a mistake in the formulas.
func walkUnits(l Layout, firstSet, sets uint64) []unit {
	var units []unit
	fileOff := firstSet * l.SetSize()
	for set := firstSet; set < firstSet+sets; set++ {
		for objOff := uint64(0); objOff < l.ObjectSize; objOff += l.StripeUnit {
			for pos := uint64(0); pos < l.StripeCount; pos++ {
				units = append(units, unit{fileOff, set*l.StripeCount + pos, objOff})
				fileOff += l.StripeUnit
			}
		}
	}
	return units
}

// window is the brute-force map of a run of whole object sets.
type window struct {
	l        Layout
	firstSet uint64
	units    []unit
}

func newWindow(l Layout, firstSet, sets uint64) window {
	return window{l, firstSet, walkUnits(l, firstSet, sets)}
}

func (w window) start() uint64 { return w.units[0].fileOff }

// end is the window's last byte plus one; it can be 2^64, which wraps to 0,
// so callers use last instead.
func (w window) last() uint64 { return w.units[len(w.units)-1].fileOff + w.l.StripeUnit - 1 }

// locate maps a file byte inside the window by finding its unit.
func (w window) locate(off uint64) (objectNo, objectOff uint64) {
	if off < w.start() || off > w.last() {
		panic("locate outside the window")
	}
	i := sort.Search(len(w.units), func(i int) bool { return w.units[i].fileOff > off }) - 1
	u := w.units[i]
	return u.objectNo, u.objectOff + (off - u.fileOff)
}

// objectLengths gives, for a file of fileSize bytes, the length of every
// object of the window that holds any of its bytes.
func (w window) objectLengths(fileSize uint64) map[uint64]uint64 {
	lengths := map[uint64]uint64{}
	for _, u := range w.units {
		if u.fileOff >= fileSize {
			continue
		}
		n := u.objectOff + min(w.l.StripeUnit, fileSize-u.fileOff)
		lengths[u.objectNo] = max(lengths[u.objectNo], n)
	}
	return lengths
}

// testWindows are the windows a layout is checked on: the start of a file,
// somewhere in the middle, and the last whole sets below 2^64, where any
// overflow in the arithmetic would show.
func testWindows(l Layout) []window {
	sets := uint64(max(1, min(3, 4*MiB/l.SetSize())))
	top := math.MaxUint64/l.SetSize() - 1
	return []window{newWindow(l, 0, sets), newWindow(l, 1_000_003, 1), newWindow(l, top, 1)}
}
