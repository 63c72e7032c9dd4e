package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

var (
	descLatency = prometheus.NewDesc("radoscp_copy_latency_seconds",
		"Latency of finished copy-from operations, failed ones included.", nil, nil)
	descCopies = prometheus.NewDesc("radoscp_copies_total",
		"Finished copy-from operations by outcome: ok, the errno's name, or error.", []string{"outcome"}, nil)
	descCopyBytes = prometheus.NewDesc("radoscp_copy_bytes_total",
		"Bytes carried by finished copy-from operations, by outcome.", []string{"outcome"}, nil)
	descInflight = prometheus.NewDesc("radoscp_inflight_objects",
		"Copy-from operations in flight.", nil, nil)
	descWindow = prometheus.NewDesc("radoscp_window",
		"Effective window (operations allowed in flight) of the copy that started last.", nil, nil)
	descFallbacks = prometheus.NewDesc("radoscp_fallbacks_total",
		"Connections that turned offload off because the OSDs answered EOPNOTSUPP.", nil, nil)
	descClientRead = prometheus.NewDesc("radoscp_client_read_bytes_total",
		"Bytes read through the client instead of copied by the OSDs.", nil, nil)
	descClientWritten = prometheus.NewDesc("radoscp_client_written_bytes_total",
		"Bytes written through the client instead of copied by the OSDs.", nil, nil)
	descCutbacks = prometheus.NewDesc("radoscp_cutbacks_total",
		"Failed copies whose destination was cut back to its published EOF.", nil, nil)
	descCopied = prometheus.NewDesc("radoscp_copied_bytes_total",
		"Bytes added to the complete, published prefix of destinations.", nil, nil)
	descVerifiedObjects = prometheus.NewDesc("radoscp_verified_objects_total",
		"Object pairs compared by verification.", nil, nil)
	descVerifiedBytes = prometheus.NewDesc("radoscp_verified_bytes_total",
		"File bytes compared by verification.", nil, nil)
	descMismatches = prometheus.NewDesc("radoscp_verify_mismatches_total",
		"Differences verification found between a copy and its source.", nil, nil)
)

var _ prometheus.Collector = (*Metrics)(nil)

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descLatency, descCopies, descCopyBytes,
		descInflight, descWindow, descFallbacks, descClientRead,
		descClientWritten, descCutbacks, descCopied, descVerifiedObjects, descVerifiedBytes, descMismatches} {
		ch <- d
	}
}

// Collect implements prometheus.Collector. Outcomes that never happened are
// left out, except ok, so that a rate over it exists from the first scrape.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	h := m.latency.read()
	ch <- prometheus.MustNewConstHistogram(descLatency, h.count, h.sum.Seconds(), h.exported())
	for i := range m.outcomes {
		o := &m.outcomes[i]
		copies := o.copies.Load()
		if copies == 0 && i != outcomeOK {
			continue
		}
		ch <- counter(descCopies, copies, outcomeNames[i])
		ch <- counter(descCopyBytes, o.bytes.Load(), outcomeNames[i])
	}
	ch <- gauge(descInflight, m.inflight.Load())
	ch <- gauge(descWindow, m.window.Load())
	ch <- counter(descFallbacks, m.fallbacks.Load())
	ch <- counter(descClientRead, m.clientRead.Load())
	ch <- counter(descClientWritten, m.clientWritten.Load())
	ch <- counter(descCutbacks, m.cutbacks.Load())
	ch <- counter(descCopied, m.copied.Load())
	ch <- counter(descVerifiedObjects, m.verifiedObjects.Load())
	ch <- counter(descVerifiedBytes, m.verifiedBytes.Load())
	ch <- counter(descMismatches, m.mismatches.Load())
}

func counter(d *prometheus.Desc, v uint64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
}

func gauge(d *prometheus.Desc, v int64) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v))
}
