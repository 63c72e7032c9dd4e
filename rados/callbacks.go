package rados

import "sync"

// callbacks maps the ids C reports completions by to what waits for them,
// so that C never holds a Go pointer (as go-ceph's internal/callbacks).
// An entry is added before its operation is submitted, since the
// completion may come before the submission returns, and taken once: by
// the completion, or by a submission that failed. A zero callbacks is
// ready to use; it is safe for concurrent use.
type callbacks[T any] struct {
	mu      sync.Mutex
	next    uint64
	pending map[uint64]T
}

// add registers v and returns its id, never 0 and never one given before.
func (r *callbacks[T]) add(v T) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	if r.pending == nil {
		r.pending = map[uint64]T{}
	}
	r.pending[r.next] = v
	return r.next
}

// take removes id's entry and returns it; ok is false when id is not
// registered (never added, or taken already).
func (r *callbacks[T]) take(id uint64) (v T, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok = r.pending[id]
	delete(r.pending, id)
	return v, ok
}

// len is the number of entries registered and not taken.
func (r *callbacks[T]) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending)
}
