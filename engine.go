package radoscp

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
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
	// Fallback reports that offload was turned off for the connection.
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

// Engine copies over one connection. It remembers, for the life of the
// connection, whether the OSDs support copy-from: the first EOPNOTSUPP turns
// offload off, and every later copy reads and writes instead.
type Engine struct {
	obs Observer
	log *slog.Logger

	noOffload    atomic.Bool
	fallbackOnce sync.Once
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
	return &Engine{obs: obs, log: log}
}

// Offload reports whether copies still use copy-from.
func (e *Engine) Offload() bool { return !e.noOffload.Load() }

// disableOffload turns offload off, logging and counting it once.
func (e *Engine) disableOffload(cause error) {
	e.fallbackOnce.Do(func() {
		e.noOffload.Store(true)
		e.obs.Fallback()
		e.log.Warn("OSDs do not support copy-from; copying through the client for the rest of this connection", "cause", cause)
	})
}
