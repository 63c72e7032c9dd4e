// Package objtest is the conformance suite for store.Objects: the same
// checks run against the in-memory fake and the real cluster, so the fake
// cannot drift from the behaviour the engine relies on.
package objtest
