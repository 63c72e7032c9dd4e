package rados

import (
	"errors"
	"fmt"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	gorados "github.com/ceph/go-ceph/rados"
	"github.com/radoscp/radoscp/store"
)

/*
#include <stdlib.h>
#include "radoscp.h"
*/
import "C"

// Pool is an I/O context: one pool and one namespace of a connection. It is
// safe for concurrent use, and valid until its connection is closed.
type Pool struct {
	conn     *Conn
	io       *gorados.IOContext
	name, ns string
	snap     uint64 // the read snap; 0 is head
}

// Name is the pool's name.
func (p *Pool) Name() string { return p.name }

// Namespace is the namespace objects are addressed in ("" for the default).
func (p *Pool) Namespace() string { return p.ns }

// Snap is the snapshot the pool reads at (0: head).
func (p *Pool) Snap() uint64 { return p.snap }

// IOContext is the underlying go-ceph I/O context.
func (p *Pool) IOContext() *gorados.IOContext { return p.io }

// Ref names an object for messages: "pool/object" or "pool/ns/object",
// with "@snap N" for a pool reading at a snapshot.
func (p *Pool) Ref(oid string) string {
	ref := p.name + "/" + oid
	if p.ns != "" {
		ref = p.name + "/" + p.ns + "/" + oid
	}
	if p.snap != 0 {
		ref += "@snap " + strconv.FormatUint(p.snap, 10)
	}
	return ref
}

// Stat stats oid (ObjectReadOperation::stat2, with the version from the
// completion). A missing object gives ErrNotFound.
func (p *Pool) Stat(oid string) (store.ObjectStat, error) {
	if err := p.enter("stat", oid); err != nil {
		return store.ObjectStat{}, err
	}
	defer p.conn.leave()
	coid := C.CString(oid)
	defer C.free(unsafe.Pointer(coid))
	var size, version C.uint64_t
	var sec, nsec C.int64_t
	ret := C.radoscp_stat_version(C.rados_ioctx_t(p.io.Pointer()), coid, C.size_t(len(oid)),
		&size, &sec, &nsec, &version)
	if ret < 0 {
		return store.ObjectStat{}, errnoError("stat", p.Ref(oid), int(ret))
	}
	return store.ObjectStat{Size: uint64(size), ModTime: time.Unix(int64(sec), int64(nsec)), Version: uint64(version)}, nil
}

// Read reads up to len(buf) bytes of oid at off (rados_read). Reading past
// the object's end returns fewer bytes, not an error.
func (p *Pool) Read(oid string, buf []byte, off uint64) (int, error) {
	if err := p.enter("read", oid); err != nil {
		return 0, err
	}
	defer p.conn.leave()
	if len(buf) == 0 {
		return 0, nil
	}
	n, err := p.io.Read(oid, buf, off)
	return n, wrap("read", p.Ref(oid), err)
}

// Write writes data into oid at off (rados_write).
func (p *Pool) Write(oid string, data []byte, off uint64) error {
	if err := p.enter("write", oid); err != nil {
		return err
	}
	defer p.conn.leave()
	if len(data) == 0 {
		return nil
	}
	return wrap("write", p.Ref(oid), p.io.Write(oid, data, off))
}

// WriteFull replaces oid's data with data (rados_write_full).
func (p *Pool) WriteFull(oid string, data []byte) error {
	if err := p.enter("write_full", oid); err != nil {
		return err
	}
	defer p.conn.leave()
	return wrap("write_full", p.Ref(oid), p.io.WriteFull(oid, data))
}

// Truncate sets oid's size (rados_trunc), creating it if missing.
func (p *Pool) Truncate(oid string, size uint64) error {
	if err := p.enter("truncate", oid); err != nil {
		return err
	}
	defer p.conn.leave()
	return wrap("truncate", p.Ref(oid), p.io.Truncate(oid, size))
}

// Remove deletes oid (rados_remove). A missing object gives ErrNotFound.
func (p *Pool) Remove(oid string) error {
	if err := p.enter("remove", oid); err != nil {
		return err
	}
	defer p.conn.leave()
	return wrap("remove", p.Ref(oid), p.io.Delete(oid))
}

// RemoveIfVersion removes oid only while its user version is version
// (rados_write_op_assert_version, then remove, in one op). The OSD's
// answer to a different version (ERANGE: older asked, EOVERFLOW: newer)
// is ECANCELED, nothing changed.
func (p *Pool) RemoveIfVersion(oid string, version uint64) error {
	if err := p.enter("remove", oid); err != nil {
		return err
	}
	defer p.conn.leave()
	op := gorados.CreateWriteOp()
	defer op.Release()
	op.AssertVersion(version)
	op.Remove()
	err := wrap("remove", p.Ref(oid), op.Operate(p.io, oid, gorados.OperationNoFlag))
	if n := store.ErrnoOf(err); n == syscall.ERANGE || n == syscall.EOVERFLOW {
		return &store.Error{Op: "remove", Object: p.Ref(oid), Errno: syscall.ECANCELED,
			Detail: fmt.Sprintf("changed since version %d", version)}
	}
	return err
}

// Xattr reads one xattr of oid (rados_getxattr). A missing attribute gives
// ENODATA, a missing object ErrNotFound.
func (p *Pool) Xattr(oid, name string) ([]byte, error) {
	if err := p.enter("getxattr "+name, oid); err != nil {
		return nil, err
	}
	defer p.conn.leave()
	size := 256
	for {
		buf := make([]byte, size)
		n, err := p.io.GetXattr(oid, name, buf)
		err = wrap("getxattr "+name, p.Ref(oid), err)
		if errors.Is(err, syscall.ERANGE) && size < 1<<24 {
			size *= 16
			continue
		}
		if err != nil {
			return nil, err
		}
		return buf[:n], nil
	}
}

// SetXattr sets one xattr of oid (rados_setxattr).
func (p *Pool) SetXattr(oid, name string, value []byte) error {
	if err := p.enter("setxattr "+name, oid); err != nil {
		return err
	}
	defer p.conn.leave()
	return wrap("setxattr "+name, p.Ref(oid), p.io.SetXattr(oid, name, value))
}

// Xattrs lists all xattrs of oid with their values (rados_getxattrs).
func (p *Pool) Xattrs(oid string) (map[string][]byte, error) {
	if err := p.enter("getxattrs", oid); err != nil {
		return nil, err
	}
	defer p.conn.leave()
	m, err := p.io.ListXattrs(oid)
	return m, wrap("getxattrs", p.Ref(oid), err)
}

// RmXattr removes one xattr of oid (rados_rmxattr).
func (p *Pool) RmXattr(oid, name string) error {
	if err := p.enter("rmxattr "+name, oid); err != nil {
		return err
	}
	defer p.conn.leave()
	return wrap("rmxattr "+name, p.Ref(oid), p.io.RmXattr(oid, name))
}

// GrowXattr sets the decimal-number xattr name of oid to value unless it
// already holds a number at least as large, atomically (cmpxattr GT plus
// setxattr in one op), as libradosstriper grows striper.size. It reports
// whether the value was stored.
func (p *Pool) GrowXattr(oid, name string, value uint64) (bool, error) {
	if err := p.enter("grow xattr "+name, oid); err != nil {
		return false, err
	}
	defer p.conn.leave()
	coid, cname := C.CString(oid), C.CString(name)
	defer C.free(unsafe.Pointer(coid))
	defer C.free(unsafe.Pointer(cname))
	ret := C.radoscp_grow_xattr(C.rados_ioctx_t(p.io.Pointer()), coid, C.size_t(len(oid)), cname, C.uint64_t(value))
	if syscall.Errno(-ret) == syscall.ECANCELED {
		return false, nil
	}
	if ret < 0 {
		return false, errnoError("grow xattr "+name, p.Ref(oid), int(ret))
	}
	return true, nil
}

// ResetXattr sets the decimal-number xattr name of oid to 0 and truncates
// oid's data to 0 bytes, in one op (radoscp_reset_xattr), only if the xattr
// holds expect; with alsoName
// not empty, the same op sets xattr alsoName to alsoValue. It reports
// whether it did; a different value changes nothing and reports false.
func (p *Pool) ResetXattr(oid, name string, expect uint64, alsoName string, alsoValue []byte) (bool, error) {
	if err := p.enter("reset xattr "+name, oid); err != nil {
		return false, err
	}
	defer p.conn.leave()
	coid, cname := C.CString(oid), C.CString(name)
	defer C.free(unsafe.Pointer(coid))
	defer C.free(unsafe.Pointer(cname))
	var calso *C.char
	if alsoName != "" {
		calso = C.CString(alsoName)
		defer C.free(unsafe.Pointer(calso))
	}
	cvalue, nvalue := cBytes(append([]byte{}, alsoValue...))
	defer C.free(unsafe.Pointer(cvalue))
	ret := C.radoscp_reset_xattr(C.rados_ioctx_t(p.io.Pointer()), coid, C.size_t(len(oid)), cname, C.uint64_t(expect),
		calso, cvalue, nvalue)
	if syscall.Errno(-ret) == syscall.ECANCELED {
		return false, nil
	}
	if ret < 0 {
		return false, errnoError("reset xattr "+name, p.Ref(oid), int(ret))
	}
	return true, nil
}

// cBytes copies b into C memory (NULL for nil), so C never holds a Go
// pointer; the caller frees it.
func cBytes(b []byte) (*C.char, C.size_t) {
	if b == nil {
		return nil, 0
	}
	return (*C.char)(C.CBytes(b)), C.size_t(len(b))
}

// Checksum has the OSD compute the xxhash64 of oid's bytes [off,
// off+length) (radoscp_checksum64): a fingerprint of an object's data that,
// unlike its version, does not change when only its xattrs or locks do.
func (p *Pool) Checksum(oid string, off, length uint64) (uint64, error) {
	if err := p.enter("checksum", oid); err != nil {
		return 0, err
	}
	defer p.conn.leave()
	coid := C.CString(oid)
	defer C.free(unsafe.Pointer(coid))
	var sum C.uint64_t
	ret := C.radoscp_checksum64(C.rados_ioctx_t(p.io.Pointer()), coid, C.size_t(len(oid)), C.uint64_t(off), C.uint64_t(length), &sum)
	if ret < 0 {
		return 0, errnoError("checksum", p.Ref(oid), int(ret))
	}
	return uint64(sum), nil
}
