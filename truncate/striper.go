package truncate

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	gorados "github.com/ceph/go-ceph/rados"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados"
)

// libradosstriper's names, so that `rados --striper` and radoscp agree.
const (
	xattrStripeUnit  = "striper.layout.stripe_unit"
	xattrStripeCount = "striper.layout.stripe_count"
	xattrObjectSize  = "striper.layout.object_size"
	xattrSize        = "striper.size"
	striperLock      = "striper.lock"
	striperLockTag   = "Tag" // shared lockers must agree on the tag
)

// StriperMeta is what a striped object's first object says about it.
type StriperMeta struct {
	Layout layout.Layout
	Size   uint64
}

// ReadStriperMeta reads the layout and size xattrs of striped object name.
// A missing object gives rados.ErrNotFound.
func ReadStriperMeta(objs rados.Objects, name string) (StriperMeta, error) {
	first := layout.Striper(name).ObjectName(0)
	attrs, err := objs.Base().Xattrs(first)
	if err != nil {
		return StriperMeta{}, err
	}
	num := func(key string) (uint64, error) {
		v, ok := attrs[key]
		if !ok {
			return 0, fmt.Errorf("striped object %s: %s has no xattr %s: not a libradosstriper object", name, objs.Ref(first), key)
		}
		n, err := strconv.ParseUint(string(v), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("striped object %s: xattr %s = %q: expected a decimal number", name, key, v)
		}
		return n, nil
	}
	var m StriperMeta
	for _, f := range []struct {
		key string
		dst *uint64
	}{
		{xattrStripeUnit, &m.Layout.StripeUnit},
		{xattrStripeCount, &m.Layout.StripeCount},
		{xattrObjectSize, &m.Layout.ObjectSize},
		{xattrSize, &m.Size},
	} {
		if *f.dst, err = num(f.key); err != nil {
			return StriperMeta{}, err
		}
	}
	if err := m.Layout.Validate(); err != nil {
		return StriperMeta{}, fmt.Errorf("striped object %s: %w", name, err)
	}
	return m, nil
}

// Striper is a libradosstriper object as a destination. Its published EOF
// is striper.size, grown only (atomically, as libradosstriper does) once the
// data below it is in place. It holds libradosstriper's shared lock while
// open, so a `rados --striper rm` or truncate cannot run under the copy.
// Object 0 carries the striper metadata and the lock, and copy-from would
// replace them with the source's, so object 0 is always read and written.
type Striper struct {
	objs   rados.Objects
	name   string
	meta   StriperMeta
	cookie string
}

var _ Destination = (*Striper)(nil)

// OpenStriper opens striped object name for writing, creating it with
// layout l when it does not exist (l is ignored for an existing one, whose
// own layout wins, as in libradosstriper).
func OpenStriper(objs rados.Objects, name string, l layout.Layout) (*Striper, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	io := objs.Base().IOContext()
	first := layout.Striper(name).ObjectName(0)
	op := gorados.CreateWriteOp()
	op.Create(gorados.CreateExclusive)
	op.SetXattr(xattrObjectSize, []byte(strconv.FormatUint(l.ObjectSize, 10)))
	op.SetXattr(xattrStripeUnit, []byte(strconv.FormatUint(l.StripeUnit, 10)))
	op.SetXattr(xattrStripeCount, []byte(strconv.FormatUint(l.StripeCount, 10)))
	op.SetXattr(xattrSize, []byte("0"))
	err := rados.ErrnoError("create striped object", objs.Ref(first), op.Operate(io, first, gorados.OperationNoFlag))
	op.Release()
	if err != nil && !errors.Is(err, rados.ErrExists) {
		return nil, err
	}

	s := &Striper{objs: objs, name: name, cookie: newCookie()}
	ret, err := io.LockShared(first, striperLock, s.cookie, striperLockTag, "radoscp copy", 0, nil)
	if err == nil && ret != 0 {
		err = fmt.Errorf("lock returned %d", ret)
	}
	if err != nil {
		return nil, rados.ErrnoError("lock striped object", objs.Ref(first), err)
	}
	if s.meta, err = ReadStriperMeta(objs, name); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func newCookie() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (s *Striper) Objects() rados.Objects       { return s.objs }
func (s *Striper) Layout() layout.Layout        { return s.meta.Layout }
func (s *Striper) Names() layout.Namer          { return layout.Striper(s.name) }
func (s *Striper) EOF() uint64                  { return s.meta.Size }
func (s *Striper) Generation() rados.Generation { return rados.Generation{} }
func (s *Striper) Offloadable(obj uint64) bool  { return obj != 0 }

// Publish grows striper.size to eof.
func (s *Striper) Publish(eof uint64) error {
	if eof <= s.meta.Size {
		return nil
	}
	first := s.Names().ObjectName(0)
	if _, err := s.objs.Base().GrowXattr(first, xattrSize, eof); err != nil {
		return fmt.Errorf("publish EOF %d: %w", eof, err)
	}
	s.meta.Size = eof
	return nil
}

// Checkpoint is Publish: growing striper.size is one atomic compare and
// set, safe while objects are being copied.
func (s *Striper) Checkpoint(eof uint64) error { return s.Publish(eof) }

// CutBack trims the objects written past striper.size; object 0 is
// truncated, never removed, as it holds the metadata.
func (s *Striper) CutBack(from, to uint64) error {
	return trimObjects(s.objs, s.meta.Layout, s.Names(), s.meta.Size, from, to, func(obj uint64) bool { return obj == 0 })
}

// Close releases the shared lock.
func (s *Striper) Close() error {
	first := s.Names().ObjectName(0)
	_, err := s.objs.Base().IOContext().Unlock(first, striperLock, s.cookie)
	if err != nil {
		return rados.ErrnoError("unlock", s.objs.Ref(first), err)
	}
	return nil
}
