package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Serve serves /metrics on addr in the background, from a registry of its
// own holding m and the Go runtime and process collectors; no global
// registry is touched. An addr with port 0 gets a free port: actualAddr is
// the address really listened on. stop shuts the server down gracefully,
// waiting for scrapes in progress until ctx is done, and returns the error
// that ended serving, if it was not the shutdown.
func (m *Metrics) Serve(addr string) (stop func(context.Context) error, actualAddr string, err error) {
	reg := prometheus.NewRegistry()
	for _, c := range []prometheus.Collector{m,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		if err := reg.Register(c); err != nil {
			return nil, "", fmt.Errorf("metrics on %s: %w", addr, err)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("metrics: cannot listen on %s: %w", addr, err)
	}
	// A scraper that stalls must not pin a goroutine for ever.
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	var serveErr error
	done := make(chan struct{}) // closed, so that stop may be called twice
	go func() {
		serveErr = srv.Serve(ln)
		close(done)
	}()

	stop = func(ctx context.Context) error {
		if err := srv.Shutdown(ctx); err != nil {
			return fmt.Errorf("metrics on %s: %w", ln.Addr(), err)
		}
		<-done
		if !errors.Is(serveErr, http.ErrServerClosed) {
			return fmt.Errorf("metrics on %s: %w", ln.Addr(), serveErr)
		}
		return nil
	}
	return stop, ln.Addr().String(), nil
}

// WriteTextfile writes m in the text exposition format for node_exporter's
// textfile collector, so that the last run of a scheduled job stays
// scraped after the process is gone. The file is written beside path and
// renamed over it, so the collector never reads half a file; name it
// *.prom. Unlike Serve it leaves out the Go and process metrics, which
// would clash with node_exporter's own.
//
// extra collectors (a job's start, end and outcome) are written with m.
func (m *Metrics) WriteTextfile(path string, extra ...prometheus.Collector) error {
	reg := prometheus.NewRegistry()
	for _, c := range append([]prometheus.Collector{m}, extra...) {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("metrics textfile %s: %w", path, err)
		}
	}
	if err := prometheus.WriteToTextfile(path, reg); err != nil {
		return fmt.Errorf("metrics textfile %s: %w", path, err)
	}
	return nil
}
