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
//
// Every stat returns before the first copy is sent, and that is what makes
// a pinned copy a point-in-time image: each object was unchanged from its
// stat to its copy, and the moment the last stat returned lies between the
// two for every object, so a copy that succeeds holds the whole source as
// it was at that moment. Stats running alongside the copies (object i+k
// stat'ed while object i is copied) would hide their round trips, but a
// writer that changed object i+k after the copy started and before its
// stat would then go unseen, and a copy could hold old and new objects
// side by side. So the pins stay a phase of their own, made short by
// running many stats at once (pinWidth), not by overlapping it.
type pins struct {
	first    uint64   // object number of versions[0]
	versions []uint64 // 0: the object did not exist
}

// Stats in flight while pinning: four times the copy's window, at least
// pinMinWidth and at most pinMaxWidth. A stat is a small metadata read, so
// a latency-bound copy pays about objects/pinWidth round trips for its pins
// instead of objects/window. Each stat holds a thread in librados's
// synchronous call, which is what bounds the width from above.
const (
	pinMinWidth = 64
	pinMaxWidth = 128
)

func pinWidth(window int) int { return min(max(4*window, pinMinWidth), pinMaxWidth) }

// pinSource stats the source objects a copy of [off, off+length) can touch,
// pinWidth(window) at a time.
func pinSource(ctx context.Context, src Source, off, length uint64, window int) (*pins, error) {
	first, end := firstObject(src.Layout, off), objectsEnd(src.Layout, off+length)
	p := &pins{first: first, versions: make([]uint64, end-first)}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		next = make(chan uint64)
	)
	for range min(uint64(pinWidth(window)), end-first) {
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
