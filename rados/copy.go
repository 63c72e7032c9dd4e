package rados

import (
	"errors"
	"syscall"
	"time"
	"unsafe"

	gorados "github.com/ceph/go-ceph/rados"

	"github.com/radoscp/radoscp/store"
)

/*
#cgo LDFLAGS: -lrados -lstdc++
#cgo CXXFLAGS: -std=c++17 -O2
#include <stdlib.h>
#include "radoscp.h"
*/
import "C"

// The fadvise hints store defines are librados.h's.
var _ = [1]struct{}{}[store.FadviseRandom^C.LIBRADOS_OP_FLAG_FADVISE_RANDOM|
	store.FadviseSequential^C.LIBRADOS_OP_FLAG_FADVISE_SEQUENTIAL|
	store.FadviseWillNeed^C.LIBRADOS_OP_FLAG_FADVISE_WILLNEED|
	store.FadviseDontNeed^C.LIBRADOS_OP_FLAG_FADVISE_DONTNEED|
	store.FadviseNoCache^C.LIBRADOS_OP_FLAG_FADVISE_NOCACHE]

// errLayout is the C layer's refusal to touch an op it does not recognise.
const errLayout = syscall.Errno(C.RADOSCP_ELAYOUT)

// Copy is one COPY_FROM2 in flight. Its completion is signalled by
// librados' callback (radoscpCopyDone), so a copy in flight holds no OS
// thread and no goroutine: only an entry in the table of copies in flight,
// by id, which is all C knows of it.
type Copy struct {
	conn     *Conn
	id       uint64
	src, dst string

	err     error         // set before ready is closed
	version uint64        // likewise
	latency time.Duration // likewise
	ready   chan struct{} // closed when the copy has completed
}

// copiesInFlight are the copies in flight, by the ids C reports their
// completions by.
var copiesInFlight callbacks[*Copy]

// CopyFrom submits a copy of src/srcOid over p/dstOid (ObjectWriteOperation::
// copy_from2 + IoCtx::aio_operate), with the destination generation on the
// wire. It returns at once; the OSDs copy the object among themselves, and
// Wait gives the result. The destination object is replaced whole: data,
// xattrs, omap. A submission failure returns an *Error and nothing is sent.
func (p *Pool) CopyFrom(dstOid string, src *Pool, srcOid string, o store.CopyOptions) (*Copy, error) {
	cp := &Copy{conn: p.conn, src: src.Ref(srcOid), dst: p.Ref(dstOid), ready: make(chan struct{})}
	c := p.conn
	c.life.RLock()
	defer c.life.RUnlock()
	if c.closed {
		return nil, &store.Error{Op: "copy", Object: cp.src, Target: cp.dst, Errno: syscall.ESHUTDOWN}
	}
	if err := c.offloadAvailable(p); err != nil {
		return nil, &store.Error{Op: "copy", Object: cp.src, Target: cp.dst, Errno: syscall.EOPNOTSUPP, Detail: err.Error()}
	}

	csrc, cdst := C.CString(srcOid), C.CString(dstOid)
	defer C.free(unsafe.Pointer(csrc))
	defer C.free(unsafe.Pointer(cdst))
	args := C.radoscp_copy_args{
		src_oid:       csrc,
		src_oid_len:   C.size_t(len(srcOid)),
		dst_oid:       cdst,
		dst_oid_len:   C.size_t(len(dstOid)),
		src_version:   C.uint64_t(o.SrcVersion),
		src_snap:      C.uint64_t(src.librarySnap()),
		src_fadvise:   C.uint32_t(o.SrcFadvise),
		dst_fadvise:   C.uint32_t(o.DstFadvise),
		with_truncate: 1,
		truncate_seq:  C.uint32_t(o.Generation.Seq),
		truncate_size: C.uint64_t(o.Generation.Size),
	}
	// Registered before submission: the callback may come before
	// radoscp_copy_submit returns.
	c.track(cp)
	cp.id = copiesInFlight.add(cp)
	ret := C.radoscp_copy_submit(C.rados_ioctx_t(p.io.Pointer()), C.rados_ioctx_t(src.io.Pointer()),
		&args, C.uint64_t(cp.id))
	if ret < 0 {
		copiesInFlight.take(cp.id)
		c.untrack(cp)
		e := &store.Error{Op: "copy", Object: cp.src, Target: cp.dst, Errno: syscall.Errno(-ret)}
		if e.Errno == errLayout {
			e.Errno = syscall.EPROTO
			e.Detail = "librados built a COPY_FROM2 op radoscp does not recognise; refusing to set its truncate flag"
		}
		return nil, e
	}
	return cp, nil
}

// librarySnap is p's read snap as librados and the wire name it:
// CEPH_NOSNAP for head.
func (p *Pool) librarySnap() uint64 {
	if p.snap == 0 {
		return uint64(gorados.SnapHead)
	}
	return p.snap
}

// offloadAvailable probes, once per connection, that the COPY_FROM2 op this
// librados builds is the one radoscp knows how to set the truncate flag on
// (radoscp_copy_probe: the op is built and checked, never sent). If it is
// not, no copy-from is ever sent on the connection: every one fails at
// submission with EOPNOTSUPP, which the engine takes as "offload not
// available" and copies through the client, with a warning naming this,
// instead of a hard EPROTO on every copy.
func (c *Conn) offloadAvailable(p *Pool) error {
	c.probe.Do(func() {
		c.probeErr = probeVerdict(syscall.Errno(-C.radoscp_copy_probe(C.rados_ioctx_t(p.io.Pointer()))))
	})
	return c.probeErr
}

// probeVerdict is what radoscp_copy_probe's errno means for the
// connection's copy-froms: none when the probe passed (0).
func probeVerdict(errno syscall.Errno) error {
	if errno == errLayout {
		return errors.New("this librados builds COPY_FROM2 ops radoscp does not recognise, so the truncate generation cannot be sent with them: offload is not available on this connection")
	}
	return nil
}

// radoscpCopyDone is librados' completion callback for copy id (called from
// copyfrom.cc's on_complete, on a librados thread): it records the result
// and signals the copy's waiters. It must not block: librados runs other
// completions on the same thread.
//
//export radoscpCopyDone
func radoscpCopyDone(id C.uint64_t, ret C.int, version C.uint64_t, latencyNs C.uint64_t) {
	cp, ok := copiesInFlight.take(uint64(id))
	if !ok {
		return // cannot happen: every id is registered before submission
	}
	cp.latency = time.Duration(latencyNs)
	if ret < 0 {
		cp.err = &store.Error{Op: "copy", Object: cp.src, Target: cp.dst, Errno: syscall.Errno(-ret)}
	} else {
		cp.version = uint64(version)
	}
	cp.conn.untrack(cp)
	close(cp.ready)
}

// Ready is closed when the copy has completed; Wait then returns at once.
func (cp *Copy) Ready() <-chan struct{} { return cp.ready }

// Wait blocks until the copy completes and returns its result: nil, or an
// *Error with the OSD's errno naming both objects. It is safe to call from
// several goroutines, any number of times; all get the same result.
func (cp *Copy) Wait() error {
	<-cp.ready
	return cp.err
}

// Latency is the time from submission to completion, valid after Wait.
func (cp *Copy) Latency() time.Duration { return cp.latency }

// CopiedVersion is, after a successful Wait, the user version of the
// source object the OSD copied: a copy-from gives the destination the
// source's user version and answers with it. 0 after a failure.
func (cp *Copy) CopiedVersion() uint64 { return cp.version }
