package verify

import (
	"context"
	"errors"
	"fmt"

	"github.com/cespare/xxhash/v2"
	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/window"
)

// Difference is one place where the destination is not the source.
type Difference struct {
	// Object names the destination object ("pool/oid"), or is empty for
	// a difference of the whole file (its size).
	Object string
	// Off and Len are the file byte range the difference lies in: the
	// object's own bytes when a set has one object, its object set's
	// when the file is striped over several.
	Off, Len uint64
	What     string
}

func (d Difference) String() string {
	if d.Object == "" {
		return d.What
	}
	return fmt.Sprintf("%s (file bytes [%d, %d)): %s", d.Object, d.Off, d.Off+d.Len, d.What)
}

// fileRange is the range of a file of size bytes that object obj's bytes
// lie in.
func fileRange(l layout.Layout, size, obj uint64) (off, n uint64) {
	if l.StripeCount == 1 {
		off = obj * l.ObjectSize
		return off, l.ObjectLength(size, obj)
	}
	off = obj / l.StripeCount * l.SetSize()
	end := min(off+l.SetSize(), size)
	if end < off {
		return off, 0
	}
	return off, end - off
}

// Result is what a comparison found.
type Result struct {
	// Objects and Bytes count what was compared: object pairs and the
	// file bytes they hold.
	Objects, Bytes uint64
	Differences    []Difference
	// ClientBytes is what crossed the client: the checksums and stats.
	ClientBytes uint64
}

// Same reports whether nothing differed.
func (r Result) Same() bool { return len(r.Differences) == 0 }

// ErrLayouts is a comparison of files with different layouts, whose
// objects do not hold the same bytes and so cannot be compared by
// checksums of whole objects.
var ErrLayouts = errors.New("layouts differ: objects cannot be compared by checksum")

// probePast is how many objects past the next two object sets are
// probed for stale data.
const probePast = 16

// replyBytes is about what one checksum or stat reply carries.
const replyBytes = 64

// Compare checks dst against src, window checksums in flight at once.
// Errors other than differences (a pool that cannot be read, EPERM) fail
// the comparison: nothing is reported as the same that was not compared.
func Compare(ctx context.Context, src, dst radoscp.Source, width int) (Result, error) {
	var res Result
	if src.Layout != dst.Layout {
		return res, fmt.Errorf("%w (source %s, destination %s)", ErrLayouts, src.Layout, dst.Layout)
	}
	l := src.Layout
	if src.Size != dst.Size {
		res.Differences = append(res.Differences, Difference{
			What: fmt.Sprintf("size %d, the source's %d", dst.Size, src.Size)})
	}
	size := min(src.Size, dst.Size)
	n := l.ObjectsFor(size)
	// Past the compared objects the destination must hold nothing: a
	// stale object there (a killed run's, an old bigger file's) is data
	// past EOF. The next two object sets and 16 objects more are probed;
	// one further out would take a listing of the whole pool to find.
	extra := 2*l.StripeCount + probePast
	results := make([]objResult, n+extra)
	run := func(ctx context.Context, i uint64) (window.Pending, error) {
		p := newPending()
		go func() {
			if i < n {
				results[i] = compareObject(src, dst, i, l.ObjectLength(size, i))
			} else {
				results[i] = checkAbsent(dst, i, l.ObjectLength(dst.Size, i))
			}
			close(p.done)
		}()
		return p, nil
	}
	r := window.Run(ctx, n+extra, width, run, nil)
	if r.Err != nil {
		return res, r.Err
	}
	for i, o := range results {
		res.ClientBytes += o.ops * replyBytes
		if o.err != nil {
			return res, o.err
		}
		if uint64(i) < n {
			res.Objects++
			res.Bytes += l.ObjectLength(size, uint64(i))
		}
		if o.diff != "" {
			off, n := fileRange(l, size, uint64(i))
			res.Differences = append(res.Differences, Difference{Object: dst.Objects.Ref(dst.Names.ObjectName(uint64(i))),
				Off: off, Len: n, What: o.diff})
		}
	}
	return res, nil
}

type objResult struct {
	diff string
	err  error
	ops  uint64
}

// compareObject compares object i, which holds want bytes in a file of the
// compared size, on both sides.
func compareObject(src, dst radoscp.Source, i, want uint64) objResult {
	var r objResult
	soid, doid := src.Names.ObjectName(i), dst.Names.ObjectName(i)
	sst, serr := src.Objects.Stat(soid)
	dst_, derr := dst.Objects.Stat(doid)
	r.ops += 2
	sMissing, dMissing := errors.Is(serr, store.ErrNotFound), errors.Is(derr, store.ErrNotFound)
	switch {
	case serr != nil && !sMissing:
		r.err = serr
		return r
	case derr != nil && !dMissing:
		r.err = derr
		return r
	case sMissing && dMissing:
		return r // a hole on both sides
	case sMissing:
		r.diff = "the source has a hole here, the destination an object"
		return r
	case dMissing:
		r.diff = "the destination has a hole here, the source an object"
		return r
	}
	// Bytes of an object past what the file's size gives it are not the
	// file's; the source's own are not compared, the destination's are
	// data past EOF.
	sLen, dLen := min(sst.Size, want), min(dst_.Size, want)
	if dst_.Size > want && dst.Size <= src.Size {
		r.diff = fmt.Sprintf("%d bytes past the end of the file's data in this object", dst_.Size-want)
		return r
	}
	// Bytes of the file's range past an object's end read as zeros: an
	// object shorter than the other matches if the other's extra bytes
	// are zeros (a sum computed here, for no data).
	common := min(sLen, dLen)
	if common > 0 {
		ss, err := src.Objects.Checksum(soid, 0, common)
		if err != nil {
			r.err = err
			return r
		}
		ds, err := dst.Objects.Checksum(doid, 0, common)
		r.ops += 2
		if err != nil {
			r.err = err
			return r
		}
		if ss != ds {
			r.diff = fmt.Sprintf("data differs (checksum %016x, the source's %016x)", ds, ss)
			return r
		}
	}
	if sLen != dLen {
		longer, oid := src.Objects, soid
		if dLen > sLen {
			longer, oid = dst.Objects, doid
		}
		sum, err := longer.Checksum(oid, common, max(sLen, dLen)-common)
		r.ops++
		if err != nil {
			r.err = err
			return r
		}
		if sum != zeroSum(max(sLen, dLen)-common) {
			r.diff = fmt.Sprintf("%d bytes of data, the source %d, and the longer one's tail is not zeros", dLen, sLen)
		}
	}
	return r
}

// zeroSum is the xxhash64 (seed 0) of n zero bytes.
func zeroSum(n uint64) uint64 {
	d := xxhash.New()
	var zeros [64 << 10]byte
	for n > 0 {
		k := min(n, uint64(len(zeros)))
		d.Write(zeros[:k])
		n -= k
	}
	return d.Sum64()
}

// checkAbsent checks that destination object i, past the compared ones,
// holds no more than want bytes (its length in a file of the
// destination's size).
func checkAbsent(dst radoscp.Source, i, want uint64) objResult {
	var r objResult
	st, err := dst.Objects.Stat(dst.Names.ObjectName(i))
	r.ops++
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		r.err = err
	case st.Size > want:
		r.diff = fmt.Sprintf("%d bytes past the end of the file", st.Size-want)
	}
	return r
}

// pending is a comparison running on a goroutine of its own.
type pending struct{ done chan struct{} }

func newPending() *pending                { return &pending{done: make(chan struct{})} }
func (p *pending) Ready() <-chan struct{} { return p.done }
func (p *pending) Wait() error            { <-p.done; return nil }
