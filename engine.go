package radoscp

import (
	"log/slog"
	"sync"
	"time"

	"github.com/radoscp/radoscp/window"
)

// Observer receives what the engine does, for metrics and progress. Its
// methods are called from the copying goroutines and must be cheap and safe
// for concurrent use.
type Observer interface {
	// CopyDone reports one finished copy-from: its latency, the file bytes
	// it carried, and its error (nil on success).
	CopyDone(latency time.Duration, bytes uint64, err error)
	// InFlight moves the number of operations in flight by delta.
	InFlight(delta int)
	// Window reports the effective window of a copy that starts.
	Window(n int)
	// Fallback reports that offload was turned off for a pair of pools.
	Fallback()
	// ClientIO reports bytes read and written through the client.
	ClientIO(read, written uint64)
	// CutBack reports that a failed copy was cut back to its EOF.
	CutBack()
	// Progress reports that the complete prefix grew by bytes.
	Progress(bytes uint64)
}

// NopObserver ignores everything.
type NopObserver struct{}

func (NopObserver) CopyDone(time.Duration, uint64, error) {}
func (NopObserver) InFlight(int)                          {}
func (NopObserver) Window(int)                            {}
func (NopObserver) Fallback()                             {}
func (NopObserver) ClientIO(uint64, uint64)               {}
func (NopObserver) CutBack()                              {}
func (NopObserver) Progress(uint64)                       {}

// Engine copies over one connection. It keeps at most window.MaxInFlight
// copy-froms in flight over all its copies (inflight.go). It remembers,
// for the life of the connection, which pairs of pools copy-from does not
// work between: the first EOPNOTSUPP of a copy from one pool into another turns offload off
// for that pair (as rclone decides server-side copy per pair of backends),
// and every later copy between them reads and writes instead; copies
// between other pools still offload. An EOPNOTSUPP says something of the
// pools (an erasure-coded destination refusing a source object's omap, an
// OSD release without COPY_FROM2), not of the cluster as a whole.
type Engine struct {
	obs Observer
	log *slog.Logger
	// limit bounds the copy-froms in flight over all the engine's
	// copies (inflight.go).
	limit *inFlightLimit

	mu        sync.Mutex
	noOffload map[poolPair]bool
}

// poolPair is a copy's source and destination pools, by name.
type poolPair struct{ src, dst string }

func pairOf(src Source, dst Target) poolPair {
	return poolPair{src: src.Objects.Locate("").Pool, dst: dst.Objects.Locate("").Pool}
}

// NewEngine returns an engine reporting to obs (nil for none) and logging to
// log (nil for slog's default).
func NewEngine(obs Observer, log *slog.Logger) *Engine {
	if obs == nil {
		obs = NopObserver{}
	}
	if log == nil {
		log = slog.Default()
	}
	return &Engine{obs: obs, log: log, limit: newInFlightLimit(window.MaxInFlight)}
}

// Offload reports whether copies from pool src into pool dst still use
// copy-from.
func (e *Engine) Offload(src, dst string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return !e.noOffload[poolPair{src, dst}]
}

// disableOffload turns offload off for pair, logging and counting it once
// per pair.
func (e *Engine) disableOffload(pair poolPair, cause error) {
	e.mu.Lock()
	if e.noOffload[pair] {
		e.mu.Unlock()
		return
	}
	if e.noOffload == nil {
		e.noOffload = map[poolPair]bool{}
	}
	e.noOffload[pair] = true
	e.mu.Unlock()
	e.obs.Fallback()
	e.log.Warn("copy-from is not supported between these pools; copying through the client between them for the rest of this connection",
		"source_pool", pair.src, "destination_pool", pair.dst, "cause", cause)
}
