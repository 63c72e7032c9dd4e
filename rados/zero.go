package rados

import (
	"syscall"
	"unsafe"
)

/*
#include <stdlib.h>
#include <rados/librados.h>
*/
import "C"

// Zero zeroes [off, off+length) of oid (rados_write_op_zero, CEPH_OSD_OP_ZERO).
// The OSD never grows the object: a range reaching its end truncates it
// at off instead; a missing object stays missing.
func (p *Pool) Zero(oid string, off, length uint64) error {
	if length == 0 {
		return nil
	}
	if err := p.enter("zero", oid); err != nil {
		return err
	}
	defer p.conn.leave()
	coid := C.CString(oid)
	defer C.free(unsafe.Pointer(coid))
	op := C.rados_create_write_op()
	defer C.rados_release_write_op(op)
	C.rados_write_op_zero(op, C.uint64_t(off), C.uint64_t(length))
	ret := C.rados_write_op_operate(op, C.rados_ioctx_t(p.io.Pointer()), coid, nil, 0)
	if syscall.Errno(-ret) == syscall.ENOENT {
		return nil // older OSDs answer a zero of a missing object so
	}
	return errnoError("zero", p.Ref(oid), int(ret))
}
