package radoscp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/radoscp/radoscp/store"
)

// errOverflow is the OSD's answer to a copy pinned to a version newer than
// the source object's.
const errOverflow = syscall.EOVERFLOW

// ErrSourceChanged marks a copy stopped because a source object changed
// (or appeared, or vanished) after the copy pinned its version.
var ErrSourceChanged = errors.New("source changed during the copy")

// pins are the versions of a copy's source objects. Copy-froms carry them,
// so the OSD refuses to copy an object that changed since; reads through
// the client are checked against them. A pinned copy therefore holds each
// object as it was when pinned, or fails with ErrSourceChanged. It costs
// one stat per object (plus the re-check below) and 9 bytes of memory per
// object.
//
// The stats run ahead of the copies, PinWidth at a time, in object order.
// An operation is submitted once the pins of the objects it reads are
// known, except the copy-froms of the first window (at most PinWidth of
// them): they carry their pins when the pins have returned and otherwise
// go without, and when each is collected the version its reply names (the
// one the OSD copied) must be the pinned one. So a latency-bound copy's
// first copies start with its first pins, not a round trip later.
//
// Why a copy that succeeds is the whole source at one instant T, the
// moment the last pin returned. An object's version is bumped by every
// change and never comes back (the OSD takes it from its placement
// group's ever-growing user version), so an object seen at version v at
// two instants held v, unchanged, between them. Object i's pin saw v_i at
// some instant before T. Its copy-from carried v_i and the OSD checked it
// when it copied, or, sent before the pin returned, its reply named v_i
// as the version copied (a client read is followed by a stat that must
// see v_i):
//   - if the operation was submitted after T, the copy happened after T,
//     so object i held v_i at T, and the copy holds v_i;
//   - if it was submitted before T (an early operation: the pins were still
//     running), the copy may have happened before T, and a change after
//     it and before T would be missed. So every early object is stat'ed
//     once more after T (recheck): still v_i means it held v_i at T too.
//     Submission is what counts, not completion: a copy whose reply came
//     after T may still have been done by the OSD before T.
//
// An object that did not exist is pinned as absent; it must still be
// absent when copied and when re-checked (an object created and removed
// again between the two checks has no version to show it). Early objects
// are usually the first few: those submitted while the pins, PinWidth at
// once, were still running. Whether an operation is early is decided on
// the dispatcher's goroutine before it is submitted, after the pinner
// published that every pin was in, so the order is certain and needs no
// clock. A failed copy's published prefix keeps the same promise for the
// instant its own pins had all returned: its early objects are re-checked
// before it is published, and checkpoints wait for the re-check. A copy
// into existing data takes every pin before its first copy: it cannot cut
// back what it wrote past a failure, so it must have no early objects.
type pins struct {
	src      Source
	first    uint64   // object number of versions[0]
	versions []uint64 // 0: the object did not exist
	width    int      // stats in flight

	mu       sync.Mutex
	got      []bool        // versions[k] is known
	known    uint64        // versions[:known] are all known
	advanced chan struct{} // closed and replaced when known grows or a pin fails
	err      error         // the failed pin of the lowest object, errAt
	errAt    uint64

	all  atomic.Bool   // every pin has returned: the copy's instant T has passed
	stop chan struct{} // closed by halt
	once sync.Once
	wg   sync.WaitGroup
}

// Stats in flight while pinning: four times the copy's window, at least
// pinMinWidth and at most pinMaxWidth. A stat is a small metadata read, so
// the pins run ahead of the copies and all are in after objects/PinWidth
// round trips, which keeps the early objects few. Over librados a stat in
// flight holds no thread (statMany). The width is bounded because a wider
// burst of stats makes the first copies' replies queue behind theirs: 256
// at once was slower than 64 to 128 in the latency-bound benchmark
// (docs/benchmarks.md, "Pinning").
const (
	pinMinWidth = 64
	pinMaxWidth = 128
)

// PinWidth is how many source stats a pinned copy with window copy-froms
// in flight keeps in flight while pinning (see the constants above);
// radoscp-bench's model of the latency-bound copy sends its pins so.
func PinWidth(window int) int { return min(max(4*window, pinMinWidth), pinMaxWidth) }

// startPins starts stating the source objects a copy of [off, off+length)
// can touch, PinWidth(window) at a time, in object order. halt stops it.
func startPins(src Source, off, length uint64, window int) *pins {
	first, end := firstObject(src.Layout, off), objectsEnd(src.Layout, off+length)
	p := &pins{src: src, first: first, versions: make([]uint64, end-first), width: PinWidth(window),
		got: make([]bool, end-first), advanced: make(chan struct{}), stop: make(chan struct{})}
	if end == first {
		p.all.Store(true)
		return p
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		statMany(src.Objects, uint64(len(p.versions)), p.objectName, p.width, p.stopping, p.pin)
	}()
	return p
}

// stopping reports whether no more pins are needed: halted, or one failed
// (the copy cannot go past it).
func (p *pins) stopping() bool {
	select {
	case <-p.stop:
		return true
	default:
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err != nil
}

// objectName is the name of the k-th object pinned, object first+k.
func (p *pins) objectName(k uint64) string { return p.src.Names.ObjectName(p.first + k) }

// pin records the stat of object first+k.
func (p *pins) pin(k uint64, st store.ObjectStat, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		if p.err == nil || k < p.errAt {
			p.err, p.errAt = fmt.Errorf("pin source version: %w", err), k
		}
		p.wake()
		return
	default:
		p.versions[k] = st.Version
	}
	p.got[k] = true
	if k != p.known {
		return
	}
	for p.known < uint64(len(p.got)) && p.got[p.known] {
		p.known++
	}
	if p.known == uint64(len(p.got)) {
		p.all.Store(true)
	}
	p.wake()
}

// wake tells await's callers that something changed; p.mu is held.
func (p *pins) wake() {
	close(p.advanced)
	p.advanced = make(chan struct{})
}

// await returns once every object below end (an object number) is pinned,
// or the error of a failed pin below it, or ctx's.
func (p *pins) await(ctx context.Context, end uint64) error {
	need := min(max(end, p.first)-p.first, uint64(len(p.versions)))
	for {
		p.mu.Lock()
		known, err, errAt, ch := p.known, p.err, p.errAt, p.advanced
		p.mu.Unlock()
		switch {
		case known >= need:
			return nil
		case err != nil && errAt < need:
			return err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// halt stops pinning and waits for the stats in flight: librados cannot
// cancel them, and the copy's connection must outlive them.
func (p *pins) halt() {
	p.once.Do(func() { close(p.stop) })
	p.wg.Wait()
}

// version is object obj's pinned version; 0 for one that did not exist.
// The caller has awaited its pin.
func (p *pins) version(obj uint64) uint64 {
	if p == nil || obj < p.first || obj-p.first >= uint64(len(p.versions)) {
		return 0
	}
	return p.versions[obj-p.first]
}

// versionSoFar is object obj's pinned version if its pin has returned,
// without waiting; 0 if it has not (or the object did not exist): what
// its copy-from carries.
func (p *pins) versionSoFar(obj uint64) uint64 {
	if p == nil || obj < p.first || obj-p.first >= uint64(len(p.versions)) {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.versions[obj-p.first]
}

// changed is the error for source object oid found in another state than
// the one pinned.
func changed(ref string, pinned uint64, now string) error {
	was := "absent"
	if pinned != 0 {
		was = fmt.Sprintf("version %d", pinned)
	}
	return fmt.Errorf("%w: %s was %s when pinned, now %s", ErrSourceChanged, ref, was, now)
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

// copyResult interprets a pinned copy-from's result, err, and the source
// version it copied: the OSD's ERANGE or EOVERFLOW (the source is newer
// or older than pinned), a source object that appeared or vanished, or a
// version copied other than the pinned one (a copy sent before its pin
// returned carries none), is a source change. The pin has returned.
func (c *copier) copyResult(obj uint64, srcOid string, err error, copied uint64) error {
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
	case err == nil && copied != pinned:
		return changed(ref, pinned, fmt.Sprintf("version %d when copied", copied))
	}
	return err
}
