package rados

import (
	"syscall"
	"time"
)

// Objects is the object I/O the copy engine uses. *Pool implements it;
// fault decorators (package rados/faults) wrap it to fail or delay chosen
// operations on a real connection.
type Objects interface {
	// Base is the real pool underneath, the source argument of Submit.
	Base() *Pool
	Ref(oid string) string
	Stat(oid string) (ObjectStat, error)
	Read(oid string, buf []byte, off uint64) (int, error)
	Write(oid string, data []byte, off uint64) error
	WriteFull(oid string, data []byte) error
	Truncate(oid string, size uint64) error
	Remove(oid string) error
	// Submit starts a COPY_FROM2 of src/srcOid over dstOid; see
	// Pool.CopyFrom. A non-nil error means nothing was sent.
	Submit(dstOid string, src Objects, srcOid string, o CopyOptions) (Pending, error)
}

// Pending is a submitted copy: Wait returns its result, Latency the time
// from submission to completion once Wait has returned.
type Pending interface {
	Wait() error
	Latency() time.Duration
}

var (
	_ Objects = (*Pool)(nil)
	_ Pending = (*Copy)(nil)
)

// Base returns p itself.
func (p *Pool) Base() *Pool { return p }

// Submit is CopyFrom behind the Objects interface.
func (p *Pool) Submit(dstOid string, src Objects, srcOid string, o CopyOptions) (Pending, error) {
	base := src.Base()
	if base == nil {
		return nil, &Error{Op: "copy", Object: src.Ref(srcOid), Target: p.Ref(dstOid), Errno: syscall.EXDEV,
			Detail: "source is not a pool of this cluster"}
	}
	cp, err := p.CopyFrom(dstOid, base, srcOid, o)
	if err != nil {
		return nil, err
	}
	return cp, nil
}
