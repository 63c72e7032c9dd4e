// Package faults decorates store.Objects with deterministic fault injection,
// in the manner of pebble's vfs/errorfs: fail the k-th operation of a kind,
// fail operations on chosen objects, fail at random with a seed, or add
// latency. It wraps a real connection, so the engine's error paths run
// against the real cluster, not only against fakes.
package faults
