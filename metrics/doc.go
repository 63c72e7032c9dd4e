// Package metrics exposes radoscp's copy statistics as a Prometheus
// collector over plain atomic counters: copy-from latency, copies and bytes
// by outcome, objects in flight, the window, fallbacks, client I/O,
// cut-backs and progress.
//
// A *Metrics is the engine's Observer. It registers nowhere by itself:
// Serve gives it a registry of its own for /metrics, WriteTextfile writes it
// for node_exporter's textfile collector, and Snapshot reads it as plain
// numbers for benchmarks and tests.
package metrics
