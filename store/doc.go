// Package store is the vocabulary the copy engine speaks to an object
// store, free of cgo: the Objects interface (object I/O, COPY_FROM2
// submission, the xattr, compare-and-set and lock operations destinations
// need), Pending completions, copy options, truncate generations and the
// errno-carrying Error. Package rados implements it over librados, package
// rados/fake in memory, and package rados/faults decorates any
// implementation with injected failures and latency; the engine, the
// destinations and their tests need no librados headers to compile.
package store
