package fake

import (
	"bytes"
	"sync"
	"syscall"
	"time"

	"github.com/radoscp/radoscp/store"
)

// Store is a set of pools sharing one lock, so copies between them are
// atomic like the OSD's.
type Store struct {
	mu      sync.Mutex
	objects map[string]*object // by Ref
	// Latency, if set, is how long each copy-from takes.
	Latency func(dstOid string) time.Duration
	// BeforeCopy, if set, runs on a copy-from's own goroutine after its
	// Latency and before it reads the source: a test holds a copy there
	// until it has made a change the copy must see.
	BeforeCopy func(dstOid string)
	// Generations records the generation each copy-from sent, by Ref.
	Generations map[string]store.Generation
	version     uint64 // the last version given to a change
}

// changed gives o a new version; the lock is held.
func (s *Store) changed(o *object) {
	s.version++
	o.version = s.version
}

type object struct {
	data    []byte
	xattr   map[string][]byte
	version uint64 // bumped by every change, as an OSD's user version
	locks   map[string][]lock
	// gen is the truncate generation a copy-from stored; plain writes
	// carry seq 0, so a stored seq above 0 clips them at the object's end.
	gen store.Generation
}

// New returns an empty store.
func New() *Store {
	return &Store{objects: map[string]*object{}, Generations: map[string]store.Generation{}}
}

// Pool returns pool name of the store.
func (s *Store) Pool(name string) *Pool { return &Pool{s: s, name: name} }

// Pool is one pool of a Store.
type Pool struct {
	s    *Store
	name string
}

var _ store.Objects = (*Pool)(nil)

func (p *Pool) Ref(oid string) string { return p.name + "/" + oid }

// Locate names oid in this pool, at head (the fake has no namespaces
// and no snapshots).
func (p *Pool) Locate(oid string) store.Location { return store.Location{Pool: p.name, Oid: oid} }
func (p *Pool) notFound(op, oid string) error {
	return &store.Error{Op: op, Object: p.Ref(oid), Errno: syscall.ENOENT}
}

// Has reports whether oid exists.
func (p *Pool) Has(oid string) bool {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	_, ok := p.s.objects[p.Ref(oid)]
	return ok
}

func (p *Pool) Stat(oid string) (store.ObjectStat, error) {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	o, ok := p.s.objects[p.Ref(oid)]
	if !ok {
		return store.ObjectStat{}, p.notFound("stat", oid)
	}
	return store.ObjectStat{Size: uint64(len(o.data)), Version: o.version}, nil
}

func (p *Pool) Read(oid string, buf []byte, off uint64) (int, error) {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	o, ok := p.s.objects[p.Ref(oid)]
	if !ok {
		return 0, p.notFound("read", oid)
	}
	if off >= uint64(len(o.data)) {
		return 0, nil
	}
	return copy(buf, o.data[off:]), nil
}

func (p *Pool) obj(oid string) *object {
	o, ok := p.s.objects[p.Ref(oid)]
	if !ok {
		o = &object{xattr: map[string][]byte{}}
		p.s.objects[p.Ref(oid)] = o
	}
	return o
}

func (p *Pool) Write(oid string, data []byte, off uint64) error {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	o := p.obj(oid)
	if size := uint64(len(o.data)); o.gen.Seq > 0 && off+uint64(len(data)) > size {
		// The OSD's rule for a write older than the stored truncate_seq:
		// clipped at the object's end (PrimaryLogPG, CEPH_OSD_OP_WRITE).
		// A write wholly past the end writes 0 bytes there, which still
		// moves the size.
		data = data[:size-min(off, size)]
	}
	if end := off + uint64(len(data)); end > uint64(len(o.data)) {
		o.data = append(o.data, make([]byte, end-uint64(len(o.data)))...)
	}
	copy(o.data[off:], data)
	p.s.changed(o)
	return nil
}

func (p *Pool) WriteFull(oid string, data []byte) error {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	o := p.obj(oid)
	o.data = bytes.Clone(data)
	p.s.changed(o)
	return nil
}

// Zero zeroes a range of an existing object, as the OSD's CEPH_OSD_OP_ZERO
// does: a range reaching the object's end cuts the object at its start
// instead, one wholly past the end changes nothing, and a missing object
// stays missing.
func (p *Pool) Zero(oid string, off, length uint64) error {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	o, ok := p.s.objects[p.Ref(oid)]
	if !ok || length == 0 {
		return nil
	}
	switch size := uint64(len(o.data)); {
	case off >= size:
		return nil
	case off+length >= size:
		o.data = o.data[:off]
	default:
		clear(o.data[off : off+length])
	}
	p.s.changed(o)
	return nil
}

func (p *Pool) Truncate(oid string, size uint64) error {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	o := p.obj(oid)
	if size <= uint64(len(o.data)) {
		o.data = o.data[:size]
	} else {
		o.data = append(o.data, make([]byte, size-uint64(len(o.data)))...)
	}
	p.s.changed(o)
	return nil
}

func (p *Pool) Remove(oid string) error {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	if _, ok := p.s.objects[p.Ref(oid)]; !ok {
		return p.notFound("remove", oid)
	}
	delete(p.s.objects, p.Ref(oid))
	return nil
}

func (p *Pool) RemoveIfVersion(oid string, version uint64) error {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	o, ok := p.s.objects[p.Ref(oid)]
	switch {
	case !ok:
		return p.notFound("remove", oid)
	case o.version != version:
		return &store.Error{Op: "remove", Object: p.Ref(oid), Errno: syscall.ECANCELED}
	}
	delete(p.s.objects, p.Ref(oid))
	return nil
}

// Submit copies at once, atomically, and completes after Latency.
func (p *Pool) Submit(dstOid string, src store.Location, o store.CopyOptions) (store.Pending, error) {
	if src.Namespace != "" {
		return nil, &store.Error{Op: "copy", Object: src.Pool + "/" + src.Namespace + "/" + src.Oid, Target: p.Ref(dstOid),
			Errno: syscall.EXDEV, Detail: "the fake has no namespaces"}
	}
	if src.Snap != 0 {
		return nil, &store.Error{Op: "copy", Object: src.Pool + "/" + src.Oid, Target: p.Ref(dstOid),
			Errno: syscall.EOPNOTSUPP, Detail: "the fake has no snapshots"}
	}
	sp, srcOid := p.s.Pool(src.Pool), src.Oid
	var lat time.Duration
	if p.s.Latency != nil {
		lat = p.s.Latency(dstOid)
	}
	c := &copyOp{done: make(chan struct{}), latency: lat}
	before := p.s.BeforeCopy
	go func() {
		time.Sleep(lat)
		if before != nil {
			before(dstOid)
		}
		p.s.mu.Lock()
		so, ok := p.s.objects[sp.Ref(srcOid)]
		switch {
		case !ok:
			c.err = &store.Error{Op: "copy", Object: sp.Ref(srcOid), Target: p.Ref(dstOid), Errno: syscall.ENOENT}
		case o.SrcVersion != 0 && so.version > o.SrcVersion:
			c.err = &store.Error{Op: "copy", Object: sp.Ref(srcOid), Target: p.Ref(dstOid), Errno: syscall.ERANGE}
		case o.SrcVersion != 0 && so.version < o.SrcVersion:
			c.err = &store.Error{Op: "copy", Object: sp.Ref(srcOid), Target: p.Ref(dstOid), Errno: syscall.EOVERFLOW}
		default:
			c.version = so.version
			x := make(map[string][]byte, len(so.xattr))
			for k, v := range so.xattr {
				x[k] = bytes.Clone(v)
			}
			// As an OSD does, the destination takes the source's version.
			do := &object{data: bytes.Clone(so.data), xattr: x, gen: o.Generation, version: so.version}
			p.s.objects[p.Ref(dstOid)] = do
			p.s.Generations[p.Ref(dstOid)] = o.Generation
		}
		p.s.mu.Unlock()
		close(c.done)
	}()
	return c, nil
}

type copyOp struct {
	done    chan struct{}
	err     error
	version uint64 // the source's, as copied
	latency time.Duration
}

func (c *copyOp) Wait() error {
	<-c.done
	return c.err
}

func (c *copyOp) Latency() time.Duration { return c.latency }

// CopiedVersion is the version of the source object copied, as the OSD
// answers it.
func (c *copyOp) CopiedVersion() uint64 { return c.version }

// Ready is closed when the copy has completed, as for a real copy.
func (c *copyOp) Ready() <-chan struct{} { return c.done }
