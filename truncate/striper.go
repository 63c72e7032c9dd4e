package truncate

import (
	"errors"
	"fmt"
	"strconv"
	"syscall"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
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
// A missing object gives store.ErrNotFound.
func ReadStriperMeta(objs store.Objects, name string) (StriperMeta, error) {
	first := layout.Striper(name).ObjectName(0)
	attrs, err := objs.Xattrs(first)
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
// data below it is in place. While open it holds the copy lock
// (CopyLockName, exclusive: no other radoscp copy writes it meanwhile) and
// libradosstriper's shared lock (so a `rados --striper rm` or truncate
// cannot run under the copy), both on object 0 and renewed in the
// background; a publish is refused once the copy lock was lost (a renewal
// failed for LockDuration, or another client took it after it expired).
// Object 0 carries the striper metadata and the locks, and copy-from would
// replace them with the source's, so object 0 is always read and written.
type Striper struct {
	objs    store.Objects
	name    string
	meta    StriperMeta
	existed bool
	lock    *CopyLock
	shared  *CopyLock
}

// StriperOptions tune OpenStriperWith.
type StriperOptions struct {
	// NoClobber refuses an existing striped object: the error wraps
	// store.ErrExists and nothing is written.
	NoClobber bool
}

// OpenStriper opens striped object name for writing, creating it with
// layout l when it does not exist (l is ignored for an existing one, whose
// own layout wins, as in libradosstriper). It takes the copy lock: another
// live copy into name gives a *HeldError (errors.Is ErrHeld). A lock that
// cannot be taken (EPERM: caps without the lock class) leaves no object
// this call created; an existing one is left as it was.
func OpenStriper(objs store.Objects, name string, l layout.Layout) (*Striper, error) {
	return OpenStriperWith(objs, name, l, StriperOptions{})
}

// OpenStriperWith is OpenStriper with options.
func OpenStriperWith(objs store.Objects, name string, l layout.Layout, o StriperOptions) (*Striper, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	first := layout.Striper(name).ObjectName(0)
	made := map[string][]byte{
		xattrObjectSize:  []byte(strconv.FormatUint(l.ObjectSize, 10)),
		xattrStripeUnit:  []byte(strconv.FormatUint(l.StripeUnit, 10)),
		xattrStripeCount: []byte(strconv.FormatUint(l.StripeCount, 10)),
		xattrSize:        []byte("0"),
	}
	err := objs.Create(first, made)
	existed := errors.Is(err, store.ErrExists)
	if err != nil && !existed {
		return nil, err
	}
	if existed && o.NoClobber {
		return nil, fmt.Errorf("striped object %s exists (%w)", objs.Ref(first), err)
	}

	s := &Striper{objs: objs, name: name, existed: existed}
	if s.lock, err = TakeCopyLock(objs, first); err != nil {
		if !existed {
			err = unmake(objs, first, made, err)
		}
		return nil, err
	}
	if s.shared, err = takeSharedLock(objs, first, striperLock, striperLockTag); err != nil {
		s.lock.Release(false)
		return nil, err
	}
	if s.meta, err = ReadStriperMeta(objs, name); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Existed reports whether the striped object was there before it was
// opened.
func (s *Striper) Existed() bool { return s.existed }

// Lock is the copy lock the destination holds.
func (s *Striper) Lock() *CopyLock { return s.lock }

func (s *Striper) Objects() store.Objects       { return s.objs }
func (s *Striper) Layout() layout.Layout        { return s.meta.Layout }
func (s *Striper) Names() layout.Namer          { return layout.Striper(s.name) }
func (s *Striper) EOF() uint64                  { return s.meta.Size }
func (s *Striper) Generation() store.Generation { return store.Generation{} }
func (s *Striper) Offloadable(obj uint64) bool  { return obj != 0 }

// Held is nil while the copy lock and libradosstriper's shared lock are
// certainly held (CopyLock.Held): every write to the striped object
// checks it first.
func (s *Striper) Held() error {
	if err := s.lock.Held(); err != nil {
		return err
	}
	return s.shared.Held()
}

// Publish grows striper.size to eof, unless the copy lock was lost.
func (s *Striper) Publish(eof uint64) error {
	if eof <= s.meta.Size {
		return nil
	}
	if err := s.Held(); err != nil {
		return fmt.Errorf("publish EOF %d: %w", eof, err)
	}
	first := s.Names().ObjectName(0)
	if _, err := s.objs.GrowXattr(first, xattrSize, eof); err != nil {
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
	if err := s.Held(); err != nil {
		return fmt.Errorf("not cut back to EOF %d: %w", s.meta.Size, err)
	}
	return trimObjects(s.objs, s.meta.Layout, s.Names(), s.meta.Size, from, to, keepFirst)
}

func keepFirst(obj uint64) bool { return obj == 0 }

// Replace empties the striped object so that a whole copy can replace it:
// striper.size goes to 0 and object 0's data is truncated in one op
// (compared against the size read at open),
// then every other object that holds bytes below max(size, dirty) is
// removed, up to width at a time. dirty is how far an earlier, interrupted
// copy may have written past the size. The same op stores rec as the
// record (SetRecord), so a copy killed while removing objects leaves a
// record saying how far to clean. Readers see the old content until the
// size drops, then an empty object that grows with the copy.
func (s *Striper) Replace(rec []byte, dirty uint64, width int) error {
	if err := s.Held(); err != nil {
		return err
	}
	end := max(s.meta.Size, dirty)
	first := s.Names().ObjectName(0)
	ok, err := s.objs.ResetXattr(first, xattrSize, s.meta.Size, xattrSource, rec)
	if err != nil {
		return fmt.Errorf("empty %s to replace it: %w", s.objs.Ref(first), err)
	}
	if !ok {
		return fmt.Errorf("empty %s to replace it: %s changed since it was read (%d): another writer", s.objs.Ref(first), xattrSize, s.meta.Size)
	}
	s.meta.Size = 0
	return removeObjects(s.objs, s.Names(), 1, setsEnd(s.meta.Layout, end), width)
}

// TrimPast removes or truncates what lies between the published EOF and
// to: objects an interrupted earlier copy wrote beyond where this one
// ended.
func (s *Striper) TrimPast(to uint64) error {
	if err := s.Held(); err != nil {
		return err
	}
	return trimObjects(s.objs, s.meta.Layout, s.Names(), s.meta.Size, s.meta.Size, to, keepFirst)
}

// StoredSize reads striper.size afresh from the OSD.
func (s *Striper) StoredSize() (uint64, error) {
	m, err := ReadStriperMeta(s.objs, s.name)
	return m.Size, err
}

// xattrSource records, while a copy runs, what it copies (see Record).
const xattrSource = "radoscp.source"

// Record returns the record of the copy in progress or interrupted (set by
// SetRecord), or nil if there is none.
func (s *Striper) Record() ([]byte, error) { return ReadStriperRecord(s.objs, s.name) }

// ReadStriperRecord is Record of striped object name, read without opening
// it (no lock: a copy running into it may change it meanwhile). A missing
// object gives store.ErrNotFound.
func ReadStriperRecord(objs store.Objects, name string) ([]byte, error) {
	v, err := objs.Xattr(layout.Striper(name).ObjectName(0), xattrSource)
	if errors.Is(err, syscall.ENODATA) {
		return nil, nil
	}
	return v, err
}

// SetRecord stores rec on object 0, where copy-from never writes.
func (s *Striper) SetRecord(rec []byte) error {
	if err := s.Held(); err != nil {
		return err
	}
	return s.objs.SetXattr(s.Names().ObjectName(0), xattrSource, rec)
}

// ClearRecord removes the record once the copy is complete.
func (s *Striper) ClearRecord() error {
	if err := s.Held(); err != nil {
		return err
	}
	err := s.objs.RmXattr(s.Names().ObjectName(0), xattrSource)
	if errors.Is(err, syscall.ENODATA) {
		return nil
	}
	return err
}

// Close releases both locks.
func (s *Striper) Close() error {
	return errors.Join(s.shared.Release(false), s.lock.Release(false))
}
