package metrics

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func TestServe(t *testing.T) {
	m := New()
	m.CopyDone(2*time.Millisecond, 4096, nil)
	m.CopyDone(time.Millisecond, 0, syscall.EOPNOTSUPP)
	stop, addr, err := m.Serve("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(addr, ":0") {
		t.Fatalf("Serve returned %q, not the port it listens on", addr)
	}

	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s, %v", resp.Status, err)
	}
	for _, name := range []string{
		"radoscp_copy_latency_seconds_bucket", "radoscp_copies_total{outcome=\"ok\"} 1",
		"radoscp_copies_total{outcome=\"EOPNOTSUPP\"} 1", "radoscp_copy_bytes_total",
		"radoscp_inflight_objects", "radoscp_window", "radoscp_fallbacks_total",
		"radoscp_client_read_bytes_total", "radoscp_client_written_bytes_total",
		"radoscp_cutbacks_total", "radoscp_copied_bytes_total",
		"go_goroutines", "process_cpu_seconds_total",
	} {
		if !strings.Contains(string(body), name) {
			t.Errorf("/metrics lacks %s", name)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := stop(ctx); err != nil {
		t.Errorf("second stop: %v", err)
	}
	if _, err := http.Get("http://" + addr + "/metrics"); err == nil {
		t.Error("still serving after stop")
	}
}

func TestServeTwiceAtOnce(t *testing.T) {
	// Each Serve has its own registry, so one Metrics may be served on two
	// addresses without a duplicate-registration error.
	m := New()
	for range 2 {
		stop, _, err := m.Serve("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer stop(context.Background())
	}
}

func TestServeBadAddr(t *testing.T) {
	for _, addr := range []string{"256.0.0.1:9", "127.0.0.1:99999", "no-port"} {
		_, _, err := New().Serve(addr)
		if err == nil || !strings.Contains(err.Error(), addr) {
			t.Errorf("Serve(%q) = %v, want an error naming the address", addr, err)
		}
	}
}

func TestWriteTextfile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "radoscp.prom")
	m := New()
	m.CopyDone(3*time.Millisecond, 4<<20, nil)
	m.CopyDone(time.Millisecond, 1, syscall.ENOENT)
	m.Progress(4 << 20)
	if err := m.WriteTextfile(path); err != nil {
		t.Fatal(err)
	}
	m.Progress(1 << 20) // a rewrite must replace, not append
	if err := m.WriteTextfile(path); err != nil {
		t.Fatal(err)
	}

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(f)
	if err != nil {
		t.Fatalf("textfile does not parse: %v", err)
	}
	if got := families["radoscp_copied_bytes_total"].GetMetric()[0].GetCounter().GetValue(); got != 5<<20 {
		t.Errorf("copied bytes %v, want %v", got, 5<<20)
	}
	copies := map[string]float64{}
	for _, mt := range families["radoscp_copies_total"].GetMetric() {
		copies[mt.GetLabel()[0].GetValue()] = mt.GetCounter().GetValue()
	}
	if copies["ok"] != 1 || copies["ENOENT"] != 1 || len(copies) != 2 {
		t.Errorf("copies by outcome %v", copies)
	}
	if h := families["radoscp_copy_latency_seconds"].GetMetric()[0].GetHistogram(); h.GetSampleCount() != 2 {
		t.Errorf("histogram count %d, want 2", h.GetSampleCount())
	}
	if _, ok := families["go_goroutines"]; ok {
		t.Error("textfile holds Go runtime metrics, which clash with node_exporter's")
	}

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("directory holds %d files, want only the textfile: temp files left over", len(entries))
	}
}

func TestWriteTextfileError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "radoscp.prom")
	err := New().WriteTextfile(path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("WriteTextfile into a missing directory: %v, want an error naming %s", err, path)
	}
}
