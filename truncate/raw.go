package truncate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
)

// Raw is a raw object set (PREFIX.%08x objects with no metadata). Its EOF is
// whatever the caller says; its objects are written under generation (0, 0),
// so plain librados writes to them later are never clipped; a cut-back
// removes or truncates the objects the copy wrote past the EOF.
type Raw struct {
	objs   store.Objects
	layout layout.Layout
	names  layout.Namer
	prefix string
	eof    uint64
	lock   *CopyLock // nil unless opened with OpenRaw
}

// NewRaw describes a raw object set whose current EOF is eof (0 for an
// empty destination). It takes no lock; see OpenRaw.
func NewRaw(objs store.Objects, l layout.Layout, prefix string, eof uint64) *Raw {
	return &Raw{objs: objs, layout: l, names: layout.Prefix(prefix), prefix: prefix, eof: eof}
}

// RawLockObject is the object a raw destination's copy lock is on: copy-from
// replaces a data object whole, xattrs and all, so the lock cannot live on
// one. It is removed when the copy ends (a killed copy leaves it, empty,
// with a lock that expires).
func RawLockObject(prefix string) string { return prefix + ".radoscp-lock" }

// OpenRaw is NewRaw holding the copy lock (CopyLockName) on
// RawLockObject(prefix) until Close: another live copy into the same prefix
// gives a *HeldError. An object of that name that radoscp did not make is
// refused (ErrForeignObject), before anything is written: Close removes
// the lock object. A lock that cannot be taken (EPERM: caps without the
// lock class) leaves no lock object this call made.
func OpenRaw(objs store.Objects, l layout.Layout, prefix string, eof uint64) (*Raw, error) {
	r := NewRaw(objs, l, prefix, eof)
	// The lock object is made, marked, with an exclusive create: made,
	// it is radoscp's by construction, in one round trip. Otherwise
	// (there already, or the create was refused) what is there is
	// checked: one that is radoscp's is taken as it is, so a client
	// whose caps allow the lock class but no write to it can still
	// copy; without one, the create's error is the answer.
	oid := RawLockObject(prefix)
	mark := map[string][]byte{xattrLockObject: []byte(prefix)}
	cerr := objs.Create(oid, mark)
	if cerr != nil {
		exists, err := rawLockObject(objs, prefix)
		switch {
		case err != nil:
			return nil, err
		case !exists:
			return nil, cerr
		}
	}
	var err error
	if r.lock, err = TakeCopyLock(objs, oid); err != nil {
		if cerr == nil {
			err = unmake(objs, oid, mark, err)
		}
		return nil, err
	}
	return r, nil
}

// xattrLockObject marks a raw destination's lock object as radoscp's.
const xattrLockObject = "radoscp.lock-object"

// ErrForeignObject is an object at a name radoscp keeps for itself that
// radoscp did not make (errors.Is).
var ErrForeignObject = errors.New("an object radoscp did not make")

// CheckRawLockObject reads whether RawLockObject(prefix) is radoscp's to
// lock and remove: missing, marked (xattrLockObject), or what an earlier
// release left (no data, no xattr but the copy lock's). Anything else is
// someone's object, which the copy's end would remove: ErrForeignObject.
func CheckRawLockObject(objs store.Objects, prefix string) error {
	_, err := rawLockObject(objs, prefix)
	return err
}

// rawLockObject is CheckRawLockObject, also saying whether the object
// exists.
func rawLockObject(objs store.Objects, prefix string) (exists bool, err error) {
	oid := RawLockObject(prefix)
	st, err := objs.Stat(oid)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	attrs, err := objs.Xattrs(oid)
	if err != nil {
		return true, err
	}
	if _, ok := attrs[xattrLockObject]; ok {
		return true, nil
	}
	var names []string
	for name := range attrs {
		if name != "lock."+CopyLockName {
			names = append(names, name)
		}
	}
	if st.Size == 0 && len(names) == 0 && len(attrs) == 1 {
		return true, nil
	}
	slices.Sort(names)
	return true, fmt.Errorf("%s holds %d bytes and xattrs %q, not radoscp's copy lock of prefix %q, which is kept there and removed when the copy ends (%w): rename the object or copy to another prefix",
		objs.Ref(oid), st.Size, names, prefix, ErrForeignObject)
}

// Lock is the copy lock, nil for a Raw made by NewRaw.
func (r *Raw) Lock() *CopyLock { return r.lock }

func (r *Raw) Objects() store.Objects       { return r.objs }
func (r *Raw) Layout() layout.Layout        { return r.layout }
func (r *Raw) Names() layout.Namer          { return r.names }
func (r *Raw) EOF() uint64                  { return r.eof }
func (r *Raw) Generation() store.Generation { return store.Generation{} }
func (r *Raw) Offloadable(uint64) bool      { return true }

// Close releases the copy lock and removes its object, if OpenRaw took it.
// A failure leaves only that empty object (see ErrLockLeft); the copied
// data is not affected.
func (r *Raw) Close() error {
	if r.lock == nil {
		return nil
	}
	if err := r.lock.Release(true); err != nil {
		return fmt.Errorf("%w %s: %w", ErrLockLeft, r.objs.Ref(RawLockObject(r.prefix)), err)
	}
	return nil
}

// ErrLockLeft is a copy lock object that could not be removed when its
// copy ended. It is empty, and the next copy into the prefix takes its
// lock over (once it expires, if it is still held); it can be removed
// with `rados rm`.
var ErrLockLeft = errors.New("could not remove the copy lock object")

// Held is nil while the copy may write: always without a lock (NewRaw),
// else while the copy lock is certainly held (CopyLock.Held).
func (r *Raw) Held() error {
	if r.lock == nil {
		return nil
	}
	return r.lock.Held()
}

// Publish records eof: a raw object set has nowhere to store it, so the
// caller reports it (and passes it back as the EOF of a later copy). It
// fails once the copy lock is lost.
func (r *Raw) Publish(eof uint64) error {
	if err := r.Held(); err != nil {
		return fmt.Errorf("publish EOF %d: %w", eof, err)
	}
	r.eof = max(r.eof, eof)
	return nil
}

// Checkpoint has nowhere to record eof either.
func (r *Raw) Checkpoint(uint64) error { return nil }

// CutBack trims what the copy wrote in [from, to) past the EOF; nothing
// once the copy lock is lost: the objects may be another copy's by then.
func (r *Raw) CutBack(from, to uint64) error {
	if err := r.Held(); err != nil {
		return fmt.Errorf("not cut back to EOF %d: %w", r.eof, err)
	}
	return trimObjects(r.objs, r.layout, r.names, r.eof, from, to, func(uint64) bool { return false })
}

// Replace empties the object set for a whole copy: every object that may
// hold bytes below the EOF it was opened with is removed, up to width at a
// time, and the EOF becomes 0, so that the copy runs with its window and
// nothing of the old data (a tail past the new length, or an object where
// the source has a hole) survives.
func (r *Raw) Replace(width int) error {
	if err := r.Held(); err != nil {
		return err
	}
	if err := removeObjects(r.objs, r.names, 0, setsEnd(r.layout, r.eof), width); err != nil {
		return err
	}
	r.eof = 0
	return nil
}

// Existing returns the first object that exists among those holding bytes
// [from, to), checked up to width at a time, or "" if none does.
func (r *Raw) Existing(from, to uint64, width int) (string, error) {
	return r.firstObject(from, to, width, func(uint64, store.ObjectStat) bool { return true })
}

// PastEOF returns the first object, among the whole object sets that hold
// bytes [from, to), that holds data at or past the EOF r was made with
// (larger than layout.ObjectLength gives it for that EOF), checked up to
// width at a time; "" if none does. Those are the objects a cut-back of a
// copy into [from, to) truncates or removes, taking the EOF as true: a set
// that holds such data has a larger EOF than it was given.
func (r *Raw) PastEOF(from, to uint64, width int) (string, error) {
	return r.firstObject(from, to, width, func(obj uint64, st store.ObjectStat) bool {
		return st.Size > r.layout.ObjectLength(r.eof, obj)
	})
}

// firstObject stats the objects of the whole object sets that hold bytes
// [from, to), up to width at a time, in order, and returns the first for
// which hit holds (missing objects never do), or "" if none does. It stops
// submitting once one is found. A failed stat of an object past the one
// found does not change the answer; one below it fails the scan.
func (r *Raw) firstObject(from, to uint64, width int, hit func(obj uint64, st store.ObjectStat) bool) (string, error) {
	if from >= to {
		return "", nil
	}
	first := from / r.layout.SetSize() * r.layout.StripeCount
	end := setsEnd(r.layout, to)
	// found is the lowest object number found; statted in parallel,
	// a later object may answer first.
	var mu sync.Mutex
	found := uint64(math.MaxUint64)
	var errs []error
	failed := uint64(math.MaxUint64) // the lowest object whose stat failed
	next := make(chan uint64)
	var wg sync.WaitGroup
	for range min(uint64(max(width, 1)), end-first) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for obj := range next {
				st, err := r.objs.Stat(r.names.ObjectName(obj))
				mu.Lock()
				switch {
				case err == nil && hit(obj, st):
					found = min(found, obj)
				case err != nil && !errors.Is(err, store.ErrNotFound):
					errs = append(errs, err)
					failed = min(failed, obj)
				}
				mu.Unlock()
			}
		}()
	}
	for obj := first; obj < end; obj++ {
		mu.Lock()
		stop := found != math.MaxUint64
		mu.Unlock()
		if stop {
			break
		}
		next <- obj
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil && failed < found {
		return "", err
	}
	if found != math.MaxUint64 {
		return r.objs.Ref(r.names.ObjectName(found)), nil
	}
	return "", nil
}
