package radoscp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/window"
)

// ErrInvalid marks a copy refused for its arguments, before anything was
// written: errors.Is(err, ErrInvalid).
var ErrInvalid = errors.New("invalid copy")

// Source is what a copy reads: objects, their layout and naming, and the
// file's size. Bytes at or past Size are not part of it.
type Source struct {
	Objects store.Objects
	Layout  layout.Layout
	Names   layout.Namer
	Size    uint64
}

// Options tune one copy. The zero value is the default.
type Options struct {
	// Window is how many operations are kept in flight; it is read once
	// when the copy starts. 0 or less means 1. Ignored when Auto is set.
	Window int
	// Auto adapts the window to the cluster while the copy runs: it
	// grows while latency holds and throughput rises and halves when
	// latency climbs (AIMD), never past MaxWindow (0 means
	// window.DefaultMaxWidthFor the copy's objects). Copies into existing
	// data still run serially.
	Auto      bool
	MaxWindow int
	// Chunk bounds each client read-and-write; 0 means store.DefaultChunk
	// (ChunkSize).
	Chunk uint64
	// OffloadOnly fails a copy that would move data through the client.
	OffloadOnly bool
	// SrcFadvise and DstFadvise are passed with every copy-from.
	SrcFadvise, DstFadvise store.Fadvise
	// PinSource reads the version of every source object before its
	// copy and pins the copy to it, so that a source changing during the
	// copy fails it (ErrSourceChanged) instead of mixing old and new data;
	// a copy that succeeds is the source at one instant (see pins). It
	// costs one stat per object, one more per object copied before the
	// last pin returned, and one more per object read through the client.
	PinSource bool
	// Clock times checkpoints; nil means the system clock. Tests use a
	// fake one to put a checkpoint on any operation without sleeping.
	Clock Clock
	// Throttle, when set, limits the bytes and operations started per
	// second; share one among the copies of a run.
	Throttle *Throttle
	// Pins, when set, are this copy's pins, started ahead of it by
	// Engine.StartPins with the same source, range and options. The copy
	// ends them, also when it does not pin after all.
	Pins *Pins
}

// Clock tells the time.
type Clock interface{ Now() time.Time }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// Result is what a copy did. On failure it is still valid: Bytes is the
// complete prefix, published.
type Result struct {
	// Bytes is the contiguous prefix copied, from dstOff: every byte of
	// it is in place and published.
	Bytes uint64
	// PublishedEOF is the destination's EOF afterwards.
	PublishedEOF uint64
	// Objects is how many objects copy-from copied.
	Objects uint64
	// Generation is the destination generation sent with every copy-from.
	Generation store.Generation
	// Window is the effective window: 1 when Serial; with Options.Auto,
	// the widest the window reached.
	Window int
	// Auto is set when the window adapted (Options.Auto, not Serial).
	Auto bool
	// Serial is set when the copy went into existing data and so ran one
	// operation at a time.
	Serial bool
	// Fallback is set when some data went through the client because
	// copy-from could not be used (layouts, alignment, or no support).
	Fallback bool
	// CutBack is set when a failure left speculative objects that were
	// cut back to the published EOF.
	CutBack bool
	Elapsed time.Duration
}

// Copy copies length bytes of src from srcOff into dst at dstOff. Whole
// object sets go to the OSDs as COPY_FROM2, up to o.Window at once; the rest
// is read and written in chunks. Copies that start before dst's EOF write
// into existing data and run one operation at a time, so that a failure
// leaves everything outside the copied prefix as it was.
//
// The first failed operation decides the result: Result.Bytes is the
// prefix before it, which is published, and whatever later operations
// wrote past it is cut back so that it can never be read. A failure before
// any byte was copied leaves dst's EOF unchanged. Invalid arguments are
// reported before anything is written.
//
// On cancellation of ctx, Copy stops submitting, waits for every operation
// in flight (librados cannot cancel them), publishes the complete prefix,
// cuts back the rest and returns an error wrapping ctx.Err(). A pinned
// copy also waits for the stats in flight, and re-checks the prefix's
// early objects before publishing it (see pins).
func (e *Engine) Copy(ctx context.Context, src Source, srcOff uint64, dst Destination, dstOff, length uint64, o Options) (Result, error) {
	start := time.Now()
	res := Result{PublishedEOF: dst.EOF(), Generation: dst.Generation()}
	if err := validate(src, srcOff, TargetOf(dst), dstOff, length); err != nil {
		o.Pins.Halt()
		return res, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	width := max(o.Window, 1)
	origEOF := dst.EOF()
	if dstOff < origEOF {
		// A cut-back there would discard data that was already in
		// the file; one at a time, nothing is written past a failure.
		width, res.Serial = 1, true
	}
	chunk := o.ChunkSize()
	maxWidth := maxWindow(src, length, o)
	var pinned *pins
	if o.PinSource && length > 0 {
		var err error
		if pinned, err = o.Pins.use(src, srcOff, length, o, res.Serial); err != nil {
			return res, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
	} else {
		o.Pins.Halt()
	}
	clock := o.Clock
	if clock == nil {
		clock = systemClock{}
	}
	cp := &copier{pins: pinned, e: e, src: src, dst: dst, opts: o, serial: res.Serial, res: &res,
		clock: clock, lastCheckpoint: clock.Now()}
	first := width
	if o.Auto && !res.Serial {
		cp.auto = newAutoWindow(maxWidth, e.obs)
		width, res.Auto = cp.auto.aimd.Max(), true
		first = cp.auto.aimd.Width()
		e.obs.Window(first)
	} else {
		e.obs.Window(width)
	}
	// The first window's copy-froms go without waiting for their pins,
	// but no more than the pins in flight beside them: together at most
	// twice pinMaxWidth operations, within what an OSD admits at once
	// (osd_client_message_cap, 256), however wide the window.
	cp.head = uint64(min(first, PinWidth(first)))
	res.Window = width
	// A buffer holds one client read-and-write: a chunk, or a whole
	// object; never more than the copy's length (a small file's copy
	// would otherwise allocate and zero a whole object's buffer).
	cp.buffers = newBufferPool(width, min(max(chunk, src.Layout.ObjectSize), length))
	var reach uint64 = dstOff
	done := uint64(0)
	var err error
	for done < length {
		var r phaseResult
		r, err = cp.phase(ctx, srcOff+done, dstOff+done, length-done, width, chunk)
		done += r.bytes
		reach = max(reach, r.reach)
		if err == nil {
			break
		}
		if pair := pairOf(src, TargetOf(dst)); errors.Is(err, store.ErrNotSupported) && r.copyFrom && e.Offload(pair.src, pair.dst) {
			e.disableOffload(pair, err)
			err = nil
			continue
		}
		break
	}
	if pinned != nil {
		done, err = cp.settlePins(srcOff, done, err)
	}
	res.Bytes = done
	if done == 0 && errors.Is(err, ErrOffloadOnly) {
		err = fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if cp.auto != nil {
		res.Window = cp.auto.peak
	}

	if done > 0 {
		if perr := dst.Publish(dstOff + done); perr != nil {
			err = errors.Join(err, perr)
		}
	}
	res.PublishedEOF = dst.EOF()
	// A serial copy cuts back too: one that grew the file past its old
	// EOF may have written past the published EOF in the op that failed
	// (a client write spanning objects fails part-way). CutBack touches
	// nothing below the published EOF, which is at or past the old one.
	if err != nil && reach > res.PublishedEOF {
		res.CutBack = true
		e.obs.CutBack()
		if cerr := dst.CutBack(dstOff, reach); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}
	res.Elapsed = time.Since(start)
	return res, err
}

// maxWindow is how wide an automatic window may grow: MaxWindow, or by
// default with the objects the copy spans, about.
func maxWindow(src Source, length uint64, o Options) int {
	objects := (length + src.Layout.ObjectSize - 1) / max(src.Layout.ObjectSize, 1)
	return cmp.Or(o.MaxWindow, window.DefaultMaxWidthFor(objects))
}

// ChunkSize is the most one client read or write of a copy carries: Chunk,
// or store.DefaultChunk when it is 0.
func (o Options) ChunkSize() uint64 { return cmp.Or(o.Chunk, store.DefaultChunk) }
