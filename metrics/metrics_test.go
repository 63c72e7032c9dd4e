package metrics

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// That Metrics is a radoscp.Observer is checked where both meet, in
// cmd/radoscp/session.go.

// wrapped hides an errno behind a type of its own, as store.Error does.
type wrapped struct{ errno syscall.Errno }

func (w *wrapped) Error() string { return "copy pool/obj: " + w.errno.Error() }
func (w *wrapped) Unwrap() error { return w.errno }

func TestCollect(t *testing.T) {
	m := New()
	m.CopyDone(500*time.Microsecond, 4<<20, nil)
	m.CopyDone(3*time.Millisecond, 4<<20, nil)
	m.CopyDone(40*time.Second, 1<<20, fmt.Errorf("object 7: %w", &wrapped{syscall.EIO}))
	m.CopyDone(time.Millisecond, 10, errors.New("no errno here"))
	m.InFlight(5)
	m.InFlight(-2)
	m.Window(16)
	m.Window(32)
	m.Fallback()
	m.ClientIO(100, 200)
	m.ClientIO(1, 2)
	m.CutBack()
	m.Progress(8 << 20)
	m.Verified(3, 5<<20, 0)
	m.Verified(1, 100, 2)

	const want = `
# HELP radoscp_client_read_bytes_total Bytes read through the client instead of copied by the OSDs.
# TYPE radoscp_client_read_bytes_total counter
radoscp_client_read_bytes_total 101
# HELP radoscp_client_written_bytes_total Bytes written through the client instead of copied by the OSDs.
# TYPE radoscp_client_written_bytes_total counter
radoscp_client_written_bytes_total 202
# HELP radoscp_copied_bytes_total Bytes added to the complete, published prefix of destinations.
# TYPE radoscp_copied_bytes_total counter
radoscp_copied_bytes_total 8.388608e+06
# HELP radoscp_copies_total Finished copy-from operations by outcome: ok, the errno's name, or error.
# TYPE radoscp_copies_total counter
radoscp_copies_total{outcome="EIO"} 1
radoscp_copies_total{outcome="error"} 1
radoscp_copies_total{outcome="ok"} 2
# HELP radoscp_copy_bytes_total Bytes carried by finished copy-from operations, by outcome.
# TYPE radoscp_copy_bytes_total counter
radoscp_copy_bytes_total{outcome="EIO"} 1.048576e+06
radoscp_copy_bytes_total{outcome="error"} 10
radoscp_copy_bytes_total{outcome="ok"} 8.388608e+06
# HELP radoscp_copy_latency_seconds Latency of finished copy-from operations, failed ones included.
# TYPE radoscp_copy_latency_seconds histogram
radoscp_copy_latency_seconds_bucket{le="0.001"} 2
radoscp_copy_latency_seconds_bucket{le="0.002"} 2
radoscp_copy_latency_seconds_bucket{le="0.004"} 3
radoscp_copy_latency_seconds_bucket{le="0.008"} 3
radoscp_copy_latency_seconds_bucket{le="0.016"} 3
radoscp_copy_latency_seconds_bucket{le="0.032"} 3
radoscp_copy_latency_seconds_bucket{le="0.064"} 3
radoscp_copy_latency_seconds_bucket{le="0.128"} 3
radoscp_copy_latency_seconds_bucket{le="0.256"} 3
radoscp_copy_latency_seconds_bucket{le="0.512"} 3
radoscp_copy_latency_seconds_bucket{le="1.024"} 3
radoscp_copy_latency_seconds_bucket{le="2.048"} 3
radoscp_copy_latency_seconds_bucket{le="4.096"} 3
radoscp_copy_latency_seconds_bucket{le="8.192"} 3
radoscp_copy_latency_seconds_bucket{le="16.384"} 3
radoscp_copy_latency_seconds_bucket{le="32.768"} 3
radoscp_copy_latency_seconds_bucket{le="+Inf"} 4
radoscp_copy_latency_seconds_sum 40.0045
radoscp_copy_latency_seconds_count 4
# HELP radoscp_cutbacks_total Failed copies whose destination was cut back to its published EOF.
# TYPE radoscp_cutbacks_total counter
radoscp_cutbacks_total 1
# HELP radoscp_fallbacks_total Connections that turned offload off because the OSDs answered EOPNOTSUPP.
# TYPE radoscp_fallbacks_total counter
radoscp_fallbacks_total 1
# HELP radoscp_inflight_objects Copy-from operations in flight.
# TYPE radoscp_inflight_objects gauge
radoscp_inflight_objects 3
# HELP radoscp_verified_bytes_total File bytes compared by verification.
# TYPE radoscp_verified_bytes_total counter
radoscp_verified_bytes_total 5.24298e+06
# HELP radoscp_verified_objects_total Object pairs compared by verification.
# TYPE radoscp_verified_objects_total counter
radoscp_verified_objects_total 4
# HELP radoscp_verify_mismatches_total Differences verification found between a copy and its source.
# TYPE radoscp_verify_mismatches_total counter
radoscp_verify_mismatches_total 2
# HELP radoscp_window Effective window (operations allowed in flight) of the copy that started last.
# TYPE radoscp_window gauge
radoscp_window 32
`
	if err := testutil.CollectAndCompare(m, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}

func TestFreshMetricsExposeOK(t *testing.T) {
	m := New()
	// Only ok is there from the start, so rate() works before any failure.
	if n := testutil.CollectAndCount(m, "radoscp_copies_total"); n != 1 {
		t.Errorf("fresh radoscp_copies_total has %d series, want 1 (ok)", n)
	}
}

func TestLint(t *testing.T) {
	m := New()
	m.CopyDone(time.Millisecond, 1, syscall.ENOENT)
	problems, err := testutil.CollectAndLint(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

func TestExportedBuckets(t *testing.T) {
	want := prometheus.ExponentialBuckets(0.001, 2, 16)
	got := New().latency.read().exported()
	if len(got) != len(want) {
		t.Fatalf("%d exported buckets, want %d", len(got), len(want))
	}
	for _, b := range want {
		if _, ok := got[b]; !ok {
			t.Errorf("no exported bucket at %g", b)
		}
	}
}

func TestOutcome(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, "ok"},
		{syscall.EIO, "EIO"},
		{syscall.ENOENT, "ENOENT"},
		{syscall.EPERM, "EPERM"},
		{syscall.EOPNOTSUPP, "EOPNOTSUPP"},
		{syscall.Errno(95), "EOPNOTSUPP"},
		{syscall.ETIMEDOUT, "ETIMEDOUT"},
		{&wrapped{syscall.ERANGE}, "ERANGE"},
		{fmt.Errorf("layer: %w", fmt.Errorf("object: %w", &wrapped{syscall.EEXIST})), "EEXIST"},
		{errors.Join(errors.New("first"), syscall.EACCES), "EACCES"},
		{errors.New("plain"), "error"},
		{context.Canceled, "error"},
		{context.DeadlineExceeded, "error"},
		{syscall.Errno(0), "error"},
		{syscall.Errno(4000), "error"},
		{syscall.Errno(250), "error"}, // in range, but no name
		{fs.ErrNotExist, "error"},
	} {
		if got := outcomeNames[outcomeOf(tc.err)]; got != tc.want {
			t.Errorf("outcome of %v = %q, want %q", tc.err, got, tc.want)
		}
	}
}

func TestOutcomeLabelsAreFixed(t *testing.T) {
	allowed := map[string]bool{}
	for _, o := range Outcomes() {
		if allowed[o] {
			t.Errorf("outcome %q listed twice", o)
		}
		allowed[o] = true
	}
	for _, o := range []string{"ok", "error", "EIO", "ENOENT", "EPERM", "EOPNOTSUPP"} {
		if !allowed[o] {
			t.Errorf("Outcomes() lacks %q", o)
		}
	}

	m := New()
	for e := -5; e < 70000; e += 7 {
		m.CopyDone(time.Millisecond, 1, syscall.Errno(e))
		m.CopyDone(time.Millisecond, 1, fmt.Errorf("weird: %w", errors.New(fmt.Sprint("E", e))))
	}
	ch := make(chan prometheus.Metric, 1024)
	go func() { m.Collect(ch); close(ch) }()
	seen := 0
	for metric := range ch {
		pb := metricProto(t, metric)
		for _, l := range pb.GetLabel() {
			if l.GetName() != "outcome" || !allowed[l.GetValue()] {
				t.Errorf("%s has label %s=%q, outside the fixed outcome set", metric.Desc(), l.GetName(), l.GetValue())
			}
			seen++
		}
	}
	if seen < 4 {
		t.Errorf("only %d labelled series; the test exercised nothing", seen)
	}
}

func TestSnapshot(t *testing.T) {
	m := New()
	if s := m.Snapshot(); s.P50 != 0 || s.P99 != 0 || s.Max != 0 || s.Mean != 0 {
		t.Errorf("empty snapshot has latencies %+v", s)
	}
	// 1ms, 2ms, ..., 100ms: p50 is 50ms, p99 is 99ms.
	for i := 1; i <= 100; i++ {
		var err error
		if i%10 == 0 {
			err = syscall.EIO
		}
		m.CopyDone(time.Duration(i)*time.Millisecond, 1000, err)
	}
	m.CopyDone(time.Millisecond, 5, syscall.ENOENT)
	m.Fallback()
	m.CutBack()
	m.CutBack()
	m.ClientIO(7, 9)
	m.Progress(42)
	m.InFlight(3)
	m.Window(8)

	s := m.Snapshot()
	if s.CopiesOK != 90 || s.CopiesFailed != 11 || s.BytesOK != 90000 || s.BytesFailed != 10005 {
		t.Errorf("copies %d ok / %d failed, bytes %d / %d; want 90/11, 90000/10005",
			s.CopiesOK, s.CopiesFailed, s.BytesOK, s.BytesFailed)
	}
	if s.Failures["EIO"] != 10 || s.Failures["ENOENT"] != 1 || len(s.Failures) != 2 {
		t.Errorf("failures %v, want EIO:10 ENOENT:1", s.Failures)
	}
	if s.Fallbacks != 1 || s.CutBacks != 2 || s.ClientRead != 7 || s.ClientWritten != 9 ||
		s.CopiedBytes != 42 || s.InFlight != 3 || s.Window != 8 {
		t.Errorf("snapshot %+v", s)
	}
	if s.Max != 100*time.Millisecond {
		t.Errorf("max %v, want 100ms", s.Max)
	}
	if want := 5051 * time.Millisecond / 101; s.Mean != want {
		t.Errorf("mean %v, want %v", s.Mean, want)
	}
	within := func(name string, got, want time.Duration) {
		if got < want*8/10 || got > want*12/10 {
			t.Errorf("%s = %v, want %v ± 20%%", name, got, want)
		}
	}
	within("p50", s.P50, 50*time.Millisecond)
	within("p99", s.P99, 99*time.Millisecond)
}

func TestQuantileBeyondLastBucket(t *testing.T) {
	m := New()
	m.CopyDone(time.Minute, 1, nil)
	m.CopyDone(2*time.Minute, 1, nil)
	s := m.Snapshot()
	if s.P99 <= 32*time.Second || s.P99 > 2*time.Minute {
		t.Errorf("p99 %v, want between the last bound and the maximum", s.P99)
	}
	if s.Max != 2*time.Minute {
		t.Errorf("max %v", s.Max)
	}
}

func TestNegativeLatencyCountsAsZero(t *testing.T) {
	m := New()
	m.CopyDone(-time.Second, 1, nil)
	if s := m.Snapshot(); s.Mean != 0 || s.Max != 0 || s.CopiesOK != 1 {
		t.Errorf("snapshot after a negative latency: %+v", s)
	}
}

func BenchmarkCopyDone(b *testing.B) {
	m := New()
	b.RunParallel(func(pb *testing.PB) {
		d := time.Millisecond
		for pb.Next() {
			m.CopyDone(d, 4<<20, nil)
			d += time.Microsecond
		}
	})
}
