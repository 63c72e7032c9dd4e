package radoscp

import (
	"sort"

	"github.com/radoscp/radoscp/layout"
)

// opKind is how one operation of a copy moves its bytes.
type opKind uint8

const (
	opCopyFrom opKind = iota // one whole object, by COPY_FROM2
	opObjectRW               // one whole object, read and written by the client
	opExtentRW               // a file byte range, read and written by the client
)

// op is one operation of a copy, dispatched through the window.
type op struct {
	kind           opKind
	srcObj, dstObj uint64 // opCopyFrom, opObjectRW
	srcOff, dstOff uint64 // opExtentRW: file offsets
	length         uint64 // file bytes the operation carries
	// complete is the destination file offset up to which the copy is
	// whole once this operation and all before it have succeeded, and
	// reach is the end of what it may write. For an object of a set they
	// differ: the set is whole only after its last object.
	complete, reach uint64
}

// run is a stretch of operations of one kind, from one plan segment.
type run struct {
	first uint64 // index of its first operation
	count uint64
	seg   layout.Segment
}

// opList enumerates a copy's operations lazily, so memory does not grow
// with the number of objects.
type opList struct {
	runs    []run
	n       uint64
	layout  layout.Layout // the source's, equal to the destination's for offload
	chunk   uint64
	offload func(dstObj uint64) bool
}

func newOpList(segs []layout.Segment, l layout.Layout, chunk uint64, offload func(uint64) bool) *opList {
	ol := &opList{layout: l, chunk: chunk, offload: offload}
	for _, s := range segs {
		var count uint64
		if s.Kind == layout.Offload {
			count = s.Objects(l)
		} else {
			count = (s.Length + chunk - 1) / chunk
		}
		ol.runs = append(ol.runs, run{first: ol.n, count: count, seg: s})
		ol.n += count
	}
	return ol
}

// at returns operation i, for i < n.
func (ol *opList) at(i uint64) op {
	r := ol.runs[sort.Search(len(ol.runs), func(k int) bool {
		return ol.runs[k].first+ol.runs[k].count > i
	})]
	k := i - r.first
	s := r.seg
	if s.Kind == layout.Offload {
		srcObj, dstObj := s.Object(ol.layout, k)
		set := k / ol.layout.StripeCount
		setSize := ol.layout.SetSize()
		setStart := s.DstOff + set*setSize
		o := op{kind: opObjectRW, srcObj: srcObj, dstObj: dstObj, length: ol.layout.ObjectSize,
			complete: setStart, reach: setStart + setSize}
		if k%ol.layout.StripeCount == ol.layout.StripeCount-1 {
			o.complete = o.reach
		}
		if ol.offload(dstObj) {
			o.kind = opCopyFrom
		}
		return o
	}
	off := k * ol.chunk
	length := min(ol.chunk, s.Length-off)
	end := s.DstOff + off + length
	return op{kind: opExtentRW, srcOff: s.SrcOff + off, dstOff: s.DstOff + off, length: length,
		complete: end, reach: end}
}
