// Package window is the sliding-window dispatcher: it keeps up to N
// asynchronous operations in flight and hands their results back in
// submission (offset) order, stopping at the first failure.
//
// It knows nothing of Ceph: an operation is anything that can be submitted
// and later waited on. Run uses a fixed width; RunAdaptive lets a Limiter,
// such as AIMD, change it between submissions. Both always wait for every
// operation they started before returning, because the I/O behind an
// operation cannot be cancelled.
package window
