package metrics

import (
	"sync/atomic"
	"time"
)

// Metrics counts what the copy engine reports. Every method is safe for
// concurrent use and costs a few atomic operations, so the copying
// goroutines can call it on every completion. The zero value is not ready:
// use New.
type Metrics struct {
	outcomes [nOutcomes]struct{ copies, bytes atomic.Uint64 }
	latency  latency

	inflight      atomic.Int64
	window        atomic.Int64
	fallbacks     atomic.Uint64
	clientRead    atomic.Uint64
	clientWritten atomic.Uint64
	cutbacks      atomic.Uint64
	copied        atomic.Uint64

	verifiedObjects, verifiedBytes, mismatches atomic.Uint64
}

// New returns metrics with every counter at zero.
func New() *Metrics { return &Metrics{} }

// CopyDone records one finished copy-from under its outcome: "ok", the
// errno's name, or "error" for a failure that carries no errno. Failures
// count in the latency histogram too: a slow EIO is as much a cluster
// latency as a slow success.
func (m *Metrics) CopyDone(latency time.Duration, bytes uint64, err error) {
	o := &m.outcomes[outcomeOf(err)]
	o.copies.Add(1)
	o.bytes.Add(bytes)
	m.latency.observe(latency)
}

// InFlight moves the objects-in-flight gauge by delta.
func (m *Metrics) InFlight(delta int) { m.inflight.Add(int64(delta)) }

// Window sets the window gauge to the window of the copy that starts last.
func (m *Metrics) Window(n int) { m.window.Store(int64(n)) }

// Fallback counts a connection that turned offload off.
func (m *Metrics) Fallback() { m.fallbacks.Add(1) }

// ClientIO counts bytes that went through the client after all.
func (m *Metrics) ClientIO(read, written uint64) {
	m.clientRead.Add(read)
	m.clientWritten.Add(written)
}

// CutBack counts a failed copy that was cut back to its published EOF.
func (m *Metrics) CutBack() { m.cutbacks.Add(1) }

// Progress counts bytes added to the complete, published prefix.
func (m *Metrics) Progress(bytes uint64) { m.copied.Add(bytes) }

// Verified records a verification of objects holding bytes of file data,
// with mismatches differences found.
func (m *Metrics) Verified(objects, bytes uint64, mismatches int) {
	m.verifiedObjects.Add(objects)
	m.verifiedBytes.Add(bytes)
	m.mismatches.Add(uint64(mismatches))
}
