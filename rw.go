package radoscp

import (
	"errors"
	"time"

	"github.com/radoscp/radoscp/store"
)

// bufferPool hands out at most one buffer per window slot, allocated on
// first use, so client copies use width*size bytes at most.
type bufferPool struct {
	free chan []byte
	size uint64
}

func newBufferPool(width int, size uint64) *bufferPool {
	return &bufferPool{free: make(chan []byte, width), size: size}
}

func (b *bufferPool) get() []byte {
	select {
	case buf := <-b.free:
		return buf
	default:
		return make([]byte, b.size)
	}
}

func (b *bufferPool) put(buf []byte) {
	select {
	case b.free <- buf:
	default:
	}
}

// bgPending is a client read-and-write running in its own goroutine.
type bgPending struct {
	done    chan struct{}
	err     error
	latency time.Duration
}

func (p *bgPending) Wait() error {
	<-p.done
	return p.err
}

func (p *bgPending) Ready() <-chan struct{} { return p.done }

// Latency is the time from the start to the end of the read and write.
func (p *bgPending) Latency() time.Duration { return p.latency }

// CopiedVersion is 0: a client read-and-write is not a copy-from.
func (p *bgPending) CopiedVersion() uint64 { return 0 }

var _ store.Pending = (*bgPending)(nil)

func (c *copier) background(f func(buf []byte) error) store.Pending {
	p := &bgPending{done: make(chan struct{})}
	start := time.Now()
	go func() {
		buf := c.buffers.get()
		p.err = f(buf)
		c.buffers.put(buf)
		p.latency = time.Since(start)
		close(p.done)
	}()
	return p
}

// objectRW copies one whole object through the client: what copy-from
// would do, without its xattrs. WriteFull replaces the data atomically and
// keeps the destination object's own xattrs.
func (c *copier) objectRW(o op, buf []byte) error {
	srcOid, dstOid := c.src.Names.ObjectName(o.srcObj), c.dst.Names().ObjectName(o.dstObj)
	buf = buf[:c.src.Layout.ObjectSize]
	n, err := readFull(c.src.Objects, srcOid, buf, 0)
	if cerr := c.checkRead(o.srcObj, srcOid, err); cerr != nil {
		return cerr
	}
	if errors.Is(err, store.ErrNotFound) {
		return c.punch(o.dstObj, dstOid)
	}
	if err != nil {
		return err
	}
	c.e.obs.ClientIO(uint64(n), 0)
	if err := c.dst.Objects().WriteFull(dstOid, buf[:n]); err != nil {
		return err
	}
	c.e.obs.ClientIO(0, uint64(n))
	return nil
}

// extentRW copies the file range of o through the client: read through the
// source's layout, write through the destination's. Missing or short
// source objects read as zeros. When every source object of the range is
// missing, the range is a hole and follows the one hole rule (see punch):
// the destination's bytes there are zeroed, never written, so a hole stays
// a hole and no old or stale data (past the original EOF too: objects a
// killed run left, or beyond a rados: --dst-size) shows through it.
func (c *copier) extentRW(o op, buf []byte) error {
	buf = buf[:o.length]
	clear(buf)
	found := false
	// With stripe count > 1 a range reads each object several times; a
	// pinned copy checks each object once, after its last read.
	var read []readOutcome
	for ext := range c.src.Layout.Extents(o.srcOff, o.length) {
		oid := c.src.Names.ObjectName(ext.ObjectNo)
		at := ext.FileOff - o.srcOff
		n, err := readFull(c.src.Objects, oid, buf[at:at+ext.Length], ext.ObjectOff)
		if c.pins != nil {
			read = noteRead(read, ext.ObjectNo, err)
		}
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		found = true
		c.e.obs.ClientIO(uint64(n), 0)
	}
	for _, r := range read {
		if err := c.checkRead(r.obj, c.src.Names.ObjectName(r.obj), r.err); err != nil {
			return err
		}
	}
	for ext := range c.dst.Layout().Extents(o.dstOff, o.length) {
		oid := c.dst.Names().ObjectName(ext.ObjectNo)
		if !found {
			if err := c.dst.Objects().Zero(oid, ext.ObjectOff, ext.Length); err != nil {
				return err
			}
			continue
		}
		at := ext.FileOff - o.dstOff
		if err := c.dst.Objects().Write(oid, buf[at:at+ext.Length], ext.ObjectOff); err != nil {
			return err
		}
		c.e.obs.ClientIO(0, ext.Length)
	}
	return nil
}

// readOutcome is whether reading one source object found it.
type readOutcome struct {
	obj uint64
	err error // nil, or the ENOENT of a missing object
}

// noteRead adds object obj to read once; a later ENOENT for it wins.
func noteRead(read []readOutcome, obj uint64, err error) []readOutcome {
	if !errors.Is(err, store.ErrNotFound) {
		err = nil
	}
	for i := range read {
		if read[i].obj == obj {
			if err != nil {
				read[i].err = err
			}
			return read
		}
	}
	return append(read, readOutcome{obj: obj, err: err})
}

// readFull reads into buf from oid at off until buf is full or the object
// ends; bytes past the object's end are left as they are.
func readFull(objs store.Objects, oid string, buf []byte, off uint64) (int, error) {
	total := 0
	for total < len(buf) {
		n, err := objs.Read(oid, buf[total:], off+uint64(total))
		if err != nil {
			return total, err
		}
		if n == 0 {
			break
		}
		total += n
	}
	return total, nil
}
