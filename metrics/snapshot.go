package metrics

import "time"

// Snapshot is the metrics as plain numbers, for `radoscp bench` and tests.
// Its counters are read one at a time, not as one atomic cut: taken while
// copies run, they may disagree by the copies that finished meanwhile.
type Snapshot struct {
	CopiesOK, CopiesFailed uint64            // finished copy-from operations
	BytesOK, BytesFailed   uint64            // bytes those operations carried
	Failures               map[string]uint64 // failed copy-froms by outcome ("EIO", "error", ...)

	CopiedBytes               uint64 // growth of the complete prefix
	ClientRead, ClientWritten uint64
	Fallbacks, CutBacks       uint64
	InFlight, Window          int64

	// Latencies of finished copy-froms. P50 and P99 are estimated from
	// histogram buckets four to a doubling (each 19% wide); Max and Mean
	// are exact. All are 0 before the first copy finishes.
	P50, P99, Max, Mean time.Duration
}

// Snapshot reads the metrics.
func (m *Metrics) Snapshot() Snapshot {
	s := Snapshot{
		Failures:      map[string]uint64{},
		CopiedBytes:   m.copied.Load(),
		ClientRead:    m.clientRead.Load(),
		ClientWritten: m.clientWritten.Load(),
		Fallbacks:     m.fallbacks.Load(),
		CutBacks:      m.cutbacks.Load(),
		InFlight:      m.inflight.Load(),
		Window:        m.window.Load(),
	}
	for i := range m.outcomes {
		o := &m.outcomes[i]
		copies, bytes := o.copies.Load(), o.bytes.Load()
		switch {
		case i == outcomeOK:
			s.CopiesOK, s.BytesOK = copies, bytes
		case copies > 0:
			s.CopiesFailed += copies
			s.BytesFailed += bytes
			s.Failures[outcomeNames[i]] += copies
		}
	}
	h := m.latency.read()
	s.P50, s.P99, s.Max = h.quantile(0.5), h.quantile(0.99), h.max
	if h.count > 0 {
		s.Mean = h.sum / time.Duration(h.count)
	}
	return s
}
