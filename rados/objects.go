package rados

import (
	gorados "github.com/ceph/go-ceph/rados"

	"github.com/radoscp/radoscp/store"
)

var (
	_ store.Objects = (*Pool)(nil)
	_ store.Pending = (*Copy)(nil)
)

// Locate names oid in p's pool and namespace, at p's read snap.
func (p *Pool) Locate(oid string) store.Location {
	return store.Location{Pool: p.name, Namespace: p.ns, Oid: oid, Snap: p.snap}
}

// Submit is CopyFrom of the object src names, read through a pool of p's
// connection opened (once) for src's pool, namespace and snap: the
// copy-from carries that snap, so the OSD copies the object as it was in
// the snapshot.
func (p *Pool) Submit(dstOid string, src store.Location, o store.CopyOptions) (store.Pending, error) {
	sp, err := p.conn.sourcePool(src.Pool, src.Namespace, src.Snap)
	if err != nil {
		return nil, err
	}
	cp, err := p.CopyFrom(dstOid, sp, src.Oid, o)
	if err != nil {
		return nil, err
	}
	return cp, nil
}

// Create creates oid, which must not exist (EEXIST), with xattrs, in one
// op (rados_write_op_create LIBRADOS_CREATE_EXCLUSIVE + setxattr).
func (p *Pool) Create(oid string, xattrs map[string][]byte) error {
	if err := p.enter("create", oid); err != nil {
		return err
	}
	defer p.conn.leave()
	op := gorados.CreateWriteOp()
	defer op.Release()
	op.Create(gorados.CreateExclusive)
	for name, v := range xattrs {
		op.SetXattr(name, v)
	}
	return wrap("create", p.Ref(oid), op.Operate(p.io, oid, gorados.OperationNoFlag))
}
