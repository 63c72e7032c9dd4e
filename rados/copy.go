package rados

import (
	"sync"
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

// Copy is one COPY_FROM2 in flight. Wait must be called, exactly once
// per copy or more (later calls return the same result); Conn.Close waits
// for copies nobody waited for.
type Copy struct {
	conn     *Conn
	handle   *C.radoscp_copy
	src, dst string

	once    sync.Once
	err     error
	latency time.Duration
	ready   chan struct{} // closed when the copy has completed
}

// CopyFrom submits a copy of src/srcOid over p/dstOid (ObjectWriteOperation::
// copy_from2 + IoCtx::aio_operate), with the destination generation on the
// wire. It returns at once; the OSDs copy the object among themselves, and
// Wait gives the result. The destination object is replaced whole: data,
// xattrs, omap. A submission failure returns an *Error and nothing is sent.
func (p *Pool) CopyFrom(dstOid string, src *Pool, srcOid string, o store.CopyOptions) (*Copy, error) {
	cp := &Copy{conn: p.conn, src: src.Ref(srcOid), dst: p.Ref(dstOid)}
	c := p.conn
	c.life.RLock()
	defer c.life.RUnlock()
	if c.closed {
		return nil, &store.Error{Op: "copy", Object: cp.src, Target: cp.dst, Errno: syscall.ESHUTDOWN}
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
	ret := C.radoscp_copy_submit(C.rados_ioctx_t(p.io.Pointer()), C.rados_ioctx_t(src.io.Pointer()),
		&args, &cp.handle)
	if ret < 0 {
		e := &store.Error{Op: "copy", Object: cp.src, Target: cp.dst, Errno: syscall.Errno(-ret)}
		if e.Errno == errLayout {
			e.Errno = syscall.EPROTO
			e.Detail = "librados built a COPY_FROM2 op radoscp does not recognise; refusing to set its truncate flag"
		}
		return nil, e
	}
	c.track(cp)
	// The completion is collected at once, on a goroutine of its own, so
	// that Ready can tell the window when the copy is done: a dispatcher
	// waiting on an older, slower copy can submit the next one meanwhile.
	cp.ready = make(chan struct{})
	go func() {
		_ = cp.Wait()
		close(cp.ready)
	}()
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

// Ready is closed when the copy has completed; Wait then returns at once.
func (cp *Copy) Ready() <-chan struct{} { return cp.ready }

// Wait blocks until the copy completes and returns its result: nil, or an
// *Error with the OSD's errno naming both objects. It is safe to call from
// several goroutines; all get the same result.
func (cp *Copy) Wait() error {
	cp.once.Do(func() {
		var ns C.uint64_t
		ret := C.radoscp_copy_wait(cp.handle, &ns)
		cp.handle = nil
		cp.latency = time.Duration(ns)
		if ret < 0 {
			cp.err = &store.Error{Op: "copy", Object: cp.src, Target: cp.dst, Errno: syscall.Errno(-ret)}
		}
		cp.conn.untrack(cp)
	})
	return cp.err
}

// Latency is the time from submission to completion, valid after Wait.
func (cp *Copy) Latency() time.Duration { return cp.latency }
