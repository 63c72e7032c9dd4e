// Package metrics exposes radoscp's copy statistics as a Prometheus
// collector over plain atomic counters: copy-from latency, copies and bytes
// by outcome, objects in flight, the window, fallbacks and cut-backs.
package metrics
