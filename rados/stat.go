package rados

import (
	"time"
	"unsafe"

	"github.com/radoscp/radoscp/store"
)

/*
#include <stdlib.h>
#include "radoscp.h"
*/
import "C"

// statsInFlight are the stats in flight, by the ids C reports their
// completions by.
var statsInFlight callbacks[pendingStat]

type pendingStat struct {
	pool *Pool
	oid  string
	done func(store.ObjectStat, error)
}

// StatAsync submits a stat of oid (ObjectReadOperation::stat2 plus
// aio_operate) and returns at once: done is called exactly once, from a
// librados thread, with what Stat would have returned. done must not block
// (librados runs other completions on its thread). A stat in flight holds
// no OS thread, unlike Stat, so many can be in flight for the cost of a
// table entry each. A submission failure is returned, and done is not
// called.
func (p *Pool) StatAsync(oid string, done func(store.ObjectStat, error)) error {
	if err := p.enter("stat", oid); err != nil {
		return err
	}
	defer p.conn.leave()
	p.conn.stats.Add(1)
	// Registered before submission: the callback may come before
	// radoscp_stat_submit returns.
	id := statsInFlight.add(pendingStat{pool: p, oid: oid, done: done})
	coid := C.CString(oid)
	defer C.free(unsafe.Pointer(coid))
	ret := C.radoscp_stat_submit(C.rados_ioctx_t(p.io.Pointer()), coid, C.size_t(len(oid)), C.uint64_t(id))
	if ret < 0 {
		statsInFlight.take(id)
		p.conn.stats.Done()
		return errnoError("stat", p.Ref(oid), int(ret))
	}
	return nil
}

// radoscpStatDone is librados' completion callback for stat id (from
// stat.cc's on_stat_complete, on a librados thread).
//
//export radoscpStatDone
func radoscpStatDone(id C.uint64_t, ret C.int, size C.uint64_t, sec, nsec C.int64_t, version C.uint64_t) {
	s, ok := statsInFlight.take(uint64(id))
	if !ok {
		return // cannot happen: every id is registered before submission
	}
	defer s.pool.conn.stats.Done()
	if ret < 0 {
		s.done(store.ObjectStat{}, errnoError("stat", s.pool.Ref(s.oid), int(ret)))
		return
	}
	s.done(store.ObjectStat{Size: uint64(size), ModTime: time.Unix(int64(sec), int64(nsec)), Version: uint64(version)}, nil)
}
