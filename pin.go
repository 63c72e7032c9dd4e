package radoscp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"

	"github.com/radoscp/radoscp/store"
)

// errOverflow is the OSD's answer to a copy pinned to a version newer than
// the source object's.
const errOverflow = syscall.EOVERFLOW

// ErrSourceChanged marks a copy stopped because a source object changed
// (or appeared, or vanished) after the copy pinned its version.
var ErrSourceChanged = errors.New("source changed during the copy")

// pins are the versions of a copy's source objects, read before anything
// is copied. Copy-froms carry them, so the OSD refuses to copy an object
// that changed since; reads through the client are checked against them.
// A pinned copy therefore holds each object as it was when pinned, or
// fails with ErrSourceChanged. It costs one stat per object and 8 bytes of
// memory per object.
type pins struct {
	first    uint64   // object number of versions[0]
	versions []uint64 // 0: the object did not exist
}

// pinSource stats the source objects a copy of [off, off+length) can touch,
// width at a time.
func pinSource(ctx context.Context, src Source, off, length uint64, width int) (*pins, error) {
	first, end := firstObject(src.Layout, off), objectsEnd(src.Layout, off+length)
	p := &pins{first: first, versions: make([]uint64, end-first)}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		next = make(chan uint64)
	)
	for range max(width, 16) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for obj := range next {
				st, err := src.Objects.Stat(src.Names.ObjectName(obj))
				switch {
				case errors.Is(err, store.ErrNotFound):
				case err != nil:
					mu.Lock()
					errs = append(errs, fmt.Errorf("pin source version: %w", err))
					mu.Unlock()
				default:
					p.versions[obj-first] = st.Version
				}
			}
		}()
	}
	for obj := first; obj < end && ctx.Err() == nil; obj++ {
		next <- obj
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return p, nil
}

// version is object obj's pinned version; 0 for one that did not exist.
func (p *pins) version(obj uint64) uint64 {
	if p == nil || obj < p.first || obj-p.first >= uint64(len(p.versions)) {
		return 0
	}
	return p.versions[obj-p.first]
}

// changed is the error for source object oid found in another state than
// the one pinned.
func changed(ref string, pinned uint64, now string) error {
	was := "absent"
	if pinned != 0 {
		was = fmt.Sprintf("version %d", pinned)
	}
	return fmt.Errorf("%w: %s was %s when the copy started, now %s", ErrSourceChanged, ref, was, now)
}

// checkRead verifies, after a read through the client, that source object
// oid is still as pinned: present at the pinned version, or absent if it
// was.
func (c *copier) checkRead(obj uint64, oid string, readErr error) error {
	if c.pins == nil {
		return nil
	}
	pinned := c.pins.version(obj)
	if errors.Is(readErr, store.ErrNotFound) {
		if pinned != 0 {
			return changed(c.src.Objects.Ref(oid), pinned, "absent")
		}
		return nil
	}
	st, err := c.src.Objects.Stat(oid)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if pinned != 0 {
			return changed(c.src.Objects.Ref(oid), pinned, "absent")
		}
		return nil
	case err != nil:
		return err
	case st.Version != pinned:
		return changed(c.src.Objects.Ref(oid), pinned, fmt.Sprintf("version %d", st.Version))
	}
	return nil
}

// copyResult interprets a pinned copy-from's result: the OSD's ERANGE or
// EOVERFLOW (the source is newer or older than pinned), or a source
// object that appeared or vanished, is a source change.
func (c *copier) copyResult(obj uint64, srcOid string, err error) error {
	if c.pins == nil {
		return err
	}
	pinned := c.pins.version(obj)
	ref := c.src.Objects.Ref(srcOid)
	switch {
	case pinned != 0 && (errors.Is(err, store.ErrRange) || store.ErrnoOf(err) == errOverflow):
		return fmt.Errorf("%w (%w)", changed(ref, pinned, "a different version"), err)
	case pinned != 0 && errors.Is(err, store.ErrNotFound):
		return changed(ref, pinned, "absent")
	case pinned == 0 && err == nil:
		return changed(ref, 0, "present")
	}
	return err
}
