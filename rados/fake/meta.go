package fake

import (
	"bytes"
	"strconv"
	"syscall"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/radoscp/radoscp/store"
)

// The xattr, compare-and-set, checksum and lock operations, as the OSD
// does them, atomically under the store's lock.

func (p *Pool) noData(op, oid string) error {
	return &store.Error{Op: op, Object: p.Ref(oid), Errno: syscall.ENODATA}
}

func (p *Pool) Create(oid string, xattrs map[string][]byte) error {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	if _, ok := p.s.objects[p.Ref(oid)]; ok {
		return &store.Error{Op: "create", Object: p.Ref(oid), Errno: syscall.EEXIST}
	}
	o := p.obj(oid)
	for k, v := range xattrs {
		o.xattr[k] = bytes.Clone(v)
	}
	p.s.changed(o)
	return nil
}

func (p *Pool) Xattr(oid, name string) ([]byte, error) {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	o, ok := p.s.objects[p.Ref(oid)]
	if !ok {
		return nil, p.notFound("getxattr "+name, oid)
	}
	v, ok := o.xattr[name]
	if !ok {
		return nil, p.noData("getxattr "+name, oid)
	}
	return bytes.Clone(v), nil
}

func (p *Pool) Xattrs(oid string) (map[string][]byte, error) {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	o, ok := p.s.objects[p.Ref(oid)]
	if !ok {
		return nil, p.notFound("getxattrs", oid)
	}
	m := make(map[string][]byte, len(o.xattr))
	for k, v := range o.xattr {
		m[k] = bytes.Clone(v)
	}
	return m, nil
}

func (p *Pool) SetXattr(oid, name string, value []byte) error {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	o := p.obj(oid)
	o.xattr[name] = bytes.Clone(value)
	p.s.changed(o)
	return nil
}

func (p *Pool) RmXattr(oid, name string) error {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	o, ok := p.s.objects[p.Ref(oid)]
	if !ok {
		return p.notFound("rmxattr "+name, oid)
	}
	if _, ok := o.xattr[name]; !ok {
		return p.noData("rmxattr "+name, oid)
	}
	delete(o.xattr, name)
	p.s.changed(o)
	return nil
}

// number reads a decimal-number xattr; a missing one is an error, as
// cmpxattr on a missing attribute is.
func (p *Pool) number(o *object, oid, name string) (uint64, error) {
	v, ok := o.xattr[name]
	if !ok {
		return 0, p.noData("cmpxattr "+name, oid)
	}
	n, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		return 0, &store.Error{Op: "cmpxattr " + name, Object: p.Ref(oid), Errno: syscall.EINVAL}
	}
	return n, nil
}

func (p *Pool) GrowXattr(oid, name string, n uint64) (bool, error) {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	o, ok := p.s.objects[p.Ref(oid)]
	if !ok {
		return false, p.notFound("grow xattr "+name, oid)
	}
	have, err := p.number(o, oid, name)
	if err != nil || n <= have {
		return false, err
	}
	o.xattr[name] = []byte(strconv.FormatUint(n, 10))
	p.s.changed(o)
	return true, nil
}

func (p *Pool) ResetXattr(oid, name string, expect uint64, alsoName string, alsoValue []byte) (bool, error) {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	o, ok := p.s.objects[p.Ref(oid)]
	if !ok {
		return false, p.notFound("reset xattr "+name, oid)
	}
	have, err := p.number(o, oid, name)
	if err != nil || have != expect {
		return false, err
	}
	o.xattr[name] = []byte("0")
	o.data = nil
	if alsoName != "" {
		o.xattr[alsoName] = bytes.Clone(alsoValue)
	}
	p.s.changed(o)
	return true, nil
}

// Checksum is xxhash64 with seed 0 over the range, as the OSD computes it.
func (p *Pool) Checksum(oid string, off, length uint64) (uint64, error) {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	o, ok := p.s.objects[p.Ref(oid)]
	if !ok {
		return 0, p.notFound("checksum", oid)
	}
	if off > uint64(len(o.data)) || length > uint64(len(o.data))-off {
		return 0, &store.Error{Op: "checksum", Object: p.Ref(oid), Errno: syscall.ERANGE}
	}
	return xxhash.Sum64(o.data[off : off+length]), nil
}

// lock is one holder of an advisory lock on an object.
type lock struct {
	cookie, tag string
	shared      bool
	expires     time.Time // zero: never
}

// fakeClient is the one client every fake pool speaks as.
const fakeClient = "client.fake"

func (p *Pool) live(o *object, name string) []lock {
	var out []lock
	for _, l := range o.locks[name] {
		if l.expires.IsZero() || time.Now().Before(l.expires) {
			out = append(out, l)
		}
	}
	o.locks[name] = out
	return out
}

func (p *Pool) takeLock(oid, name, cookie, tag string, shared bool, d time.Duration, renew bool) (store.LockResult, error) {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	o := p.obj(oid)
	if o.locks == nil {
		o.locks = map[string][]lock{}
	}
	held := p.live(o, name)
	l := lock{cookie: cookie, tag: tag, shared: shared}
	if d > 0 {
		l.expires = time.Now().Add(d)
	}
	for i, h := range held {
		if h.cookie == cookie {
			if !renew {
				return store.LockExists, nil
			}
			held[i] = l
			p.s.changed(o)
			return store.Locked, nil
		}
		if !shared || !h.shared || h.tag != tag {
			return store.LockBusy, nil
		}
	}
	o.locks[name] = append(held, l)
	p.s.changed(o)
	return store.Locked, nil
}

func (p *Pool) LockExclusive(oid, name, cookie, desc string, d time.Duration, renew bool) (store.LockResult, error) {
	return p.takeLock(oid, name, cookie, "", false, d, renew)
}

func (p *Pool) LockShared(oid, name, cookie, tag, desc string, d time.Duration, renew bool) (store.LockResult, error) {
	return p.takeLock(oid, name, cookie, tag, true, d, renew)
}

func (p *Pool) Lockers(oid, name string) ([]store.Locker, error) {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	o, ok := p.s.objects[p.Ref(oid)]
	if !ok {
		return nil, p.notFound("list lockers", oid)
	}
	if o.locks == nil {
		return nil, nil
	}
	var out []store.Locker
	for _, l := range p.live(o, name) {
		out = append(out, store.Locker{Client: fakeClient, Cookie: l.cookie})
	}
	return out, nil
}

func (p *Pool) BreakLock(oid, name string, l store.Locker) (bool, error) {
	return p.unlock(oid, name, l.Cookie)
}

func (p *Pool) Unlock(oid, name, cookie string) error {
	ok, err := p.unlock(oid, name, cookie)
	if err == nil && !ok {
		err = &store.Error{Op: "unlock " + name, Object: p.Ref(oid), Errno: syscall.ENOENT}
	}
	return err
}

func (p *Pool) unlock(oid, name, cookie string) (bool, error) {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	o, ok := p.s.objects[p.Ref(oid)]
	if !ok {
		return false, p.notFound("unlock "+name, oid)
	}
	held := p.live(o, name)
	for i, h := range held {
		if h.cookie == cookie {
			o.locks[name] = append(held[:i], held[i+1:]...)
			return true, nil
		}
	}
	return false, nil
}

func (p *Pool) UnlockAndRemove(oid, name, cookie string) error {
	if err := p.Unlock(oid, name, cookie); err != nil {
		return err
	}
	return p.Remove(oid)
}
