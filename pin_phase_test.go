package radoscp_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// hooked runs before when the copy-from of a destination object is
// submitted and after once it has completed. after runs as soon as the
// copy completes, on a goroutine of its own, not when the window comes to
// collect it (the window may be waiting on a pin then); the copy counts
// as complete only once after has run.
type hooked struct {
	store.Objects
	before, after func(dstOid string)
}

func (h *hooked) Submit(dstOid string, src store.Location, o store.CopyOptions) (store.Pending, error) {
	if h.before != nil {
		h.before(dstOid)
	}
	p, err := h.Objects.Submit(dstOid, src, o)
	if err != nil || h.after == nil {
		return p, err
	}
	hp := &hookedPending{Pending: p, ready: make(chan struct{})}
	go func() {
		<-p.Ready()
		h.after(dstOid)
		close(hp.ready)
	}()
	return hp, nil
}

type hookedPending struct {
	store.Pending
	ready chan struct{}
}

func (p *hookedPending) Ready() <-chan struct{} { return p.ready }

func (p *hookedPending) Wait() error {
	<-p.ready
	return p.Pending.Wait()
}

// statHooks watches the stats of a copy's source objects: it counts them
// per object, can hold the first stat of an object until a channel closes
// (a watchdog gives up after holdFor, and says so), can hold every stat
// until want of them are in flight at once, and runs after when the n-th
// stat of an object has returned from the pool, before the copy sees it.
type statHooks struct {
	store.Objects
	hold  map[string]chan struct{}
	after func(oid string, n int)
	want  int

	mu       sync.Mutex
	stats    map[string]int
	inflight int
	peak     int
	gate     chan struct{} // closed once want stats were in flight
	gated    bool
	heldOut  []string // holds the watchdog ended
}

const holdFor = 20 * time.Second

func newStatHooks(objs store.Objects) *statHooks {
	return &statHooks{Objects: objs, hold: map[string]chan struct{}{}, stats: map[string]int{}, gate: make(chan struct{})}
}

func (s *statHooks) Stat(oid string) (store.ObjectStat, error) {
	n := s.before(oid)
	st, err := s.Objects.Stat(oid)
	s.done(oid, n)
	return st, err
}

// StatAsync makes the hooks an AsyncStatter, so the pins take the path
// they take over librados: over a real pool its stats go out through its
// own StatAsync, over the fake through Stat on a goroutine. The hooks
// that wait or write run on goroutines of their own, never on a librados
// thread, and before done: a change made "after the pin" is made before
// the pin is recorded, as with Stat.
func (s *statHooks) StatAsync(oid string, done func(store.ObjectStat, error)) error {
	go func() {
		n := s.before(oid)
		finish := func(st store.ObjectStat, err error) {
			go func() {
				s.done(oid, n)
				done(st, err)
			}()
		}
		if as, ok := s.Objects.(store.AsyncStatter); ok {
			if err := as.StatAsync(oid, finish); err != nil {
				finish(store.ObjectStat{}, err)
			}
			return
		}
		finish(s.Objects.Stat(oid))
	}()
	return nil
}

// before counts a stat of oid and holds it as the hooks say; n is how
// many times oid has been stat'ed, this one included.
func (s *statHooks) before(oid string) int {
	s.mu.Lock()
	s.stats[oid]++
	n := s.stats[oid]
	s.inflight++
	s.peak = max(s.peak, s.inflight)
	if s.inflight >= s.want && !s.gated {
		s.gated = true
		close(s.gate)
	}
	s.mu.Unlock()
	if s.want > 0 {
		s.wait(s.gate, "the first stats")
	}
	if ch := s.hold[oid]; ch != nil && n == 1 {
		s.wait(ch, oid)
	}
	return n
}

// done runs the after hook of stat n of oid, which has returned.
func (s *statHooks) done(oid string, n int) {
	if s.after != nil {
		s.after(oid, n)
	}
	s.mu.Lock()
	s.inflight--
	s.mu.Unlock()
}

func (s *statHooks) wait(ch <-chan struct{}, what string) {
	select {
	case <-ch:
	case <-time.After(holdFor):
		s.mu.Lock()
		s.heldOut = append(s.heldOut, what)
		s.mu.Unlock()
	}
}

func (s *statHooks) count(oid string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats[oid]
}

// pinWhen is when, relative to the copy, a writer changes a source object.
type pinWhen int

const (
	// afterPin: right after the object's pin returned, so before its
	// copy (past the first window, the copy waits for its pin).
	afterPin pinWhen = iota
	// afterCopy: once the object's copy completed; for the last object,
	// whose copy waits for every pin, that is after the last pin.
	afterCopy
	// betweenPinAndCopy: object 0's pin is held until its copy-from is
	// being submitted (without the pin: the first window does not wait
	// for pins), and the change is made once the pin has returned,
	// before the copy is sent: the copy copies the changed object.
	betweenPinAndCopy
	// headAfterRecheck: object 0's pin is held until its copy-from has
	// completed (a copy that waited for its pin would never start), and
	// the change is made after its re-check.
	headAfterRecheck
	// earlyAfterCopy: object 0's copy completed while the last object's
	// pin was held back, and the change is made before that pin is let
	// go: a change after the copy and before the copy's instant.
	earlyAfterCopy
	// afterRecheck: object 0 is copied early as above, and changed
	// right after its re-check returned: after the copy's instant.
	afterRecheck
)

// pinCase is one writer racing a pinned copy of pinObjects objects: the
// writer rewrites (or, with fill, creates) source object changed at
// when; the copy must then copy wantObjects objects and fail naming
// changed (or succeed, with wantObjects == pinObjects).
type pinCase struct {
	name        string
	hole        int64 // a source object removed before the copy; -1 for none
	changed     uint64
	when        pinWhen
	fill        bool
	wantObjects uint64
}

const pinObjects = 8

// The promise of a pinned copy: it holds the whole source as it was at
// the instant the last pin returned, or fails naming an object that
// changed. A change after an object's pin fails the copy; so does a
// change after an early object's copy but before the last pin, which the
// re-check finds; a change after that instant does not, and the copy
// holds the pinned data; a hole filled is a change too.
var pinCases = []pinCase{
	{name: "rewritten after its pin", hole: -1, changed: 5, when: afterPin, wantObjects: 5},
	{name: "rewritten after its copy and the last pin", hole: -1, changed: 7, when: afterCopy, wantObjects: pinObjects},
	{name: "early object rewritten after its copy before the last pin", hole: -1, changed: 0, when: earlyAfterCopy, wantObjects: 0},
	{name: "early object rewritten after its re-check", hole: -1, changed: 0, when: afterRecheck, wantObjects: pinObjects},
	{name: "hole filled after its pin", hole: 5, changed: 5, when: afterPin, fill: true, wantObjects: 5},
	{name: "hole filled after its copy and the last pin", hole: 7, changed: 7, when: afterCopy, fill: true, wantObjects: pinObjects},
	{name: "early hole filled after its copy before the last pin", hole: 0, changed: 0, when: earlyAfterCopy, fill: true, wantObjects: 0},
	{name: "first object rewritten between its pin and its unpinned copy", hole: -1, changed: 0, when: betweenPinAndCopy, wantObjects: 0},
	{name: "first hole filled between its pin and its unpinned copy", hole: 0, changed: 0, when: betweenPinAndCopy, fill: true, wantObjects: 0},
	{name: "first object copied before its pin returned, rewritten after its re-check", hole: -1, changed: 0, when: headAfterRecheck, wantObjects: pinObjects},
}

// pinTarget is where runPinCase copies: source and destination as the
// engine sees them, the source pool the writer writes to, and readers of
// the destination independent of the engine.
type pinTarget struct {
	engine     *radoscp.Engine
	source     radoscp.Source
	srcPool    store.Objects
	dst        func(src store.Objects, dst store.Objects) radoscp.Destination
	dstObjects store.Objects
	dstNames   layout.Namer
	data       []byte
	read       func(off, n uint64) []byte
	existing   func(from, to uint64) []uint64
}

// runPinCase copies pinObjects objects with window 2 while the writer of
// c changes the source.
func runPinCase(t *testing.T, c pinCase, g pinTarget) {
	t.Helper()
	objSize := g.source.Layout.ObjectSize
	names := g.source.Names
	want := bytes.Clone(g.data)
	if c.hole >= 0 {
		if err := g.srcPool.Remove(names.ObjectName(uint64(c.hole))); err != nil {
			t.Fatal(err)
		}
		clear(want[uint64(c.hole)*objSize : uint64(c.hole+1)*objSize])
	}
	changedOid := names.ObjectName(c.changed)
	var (
		mu      sync.Mutex
		written bool
	)
	change := func() {
		mu.Lock()
		defer mu.Unlock()
		if written {
			return
		}
		written = true
		newData := bytes.Repeat([]byte{0xee}, int(objSize))
		if c.fill {
			newData = []byte("filled")
		}
		if err := g.srcPool.WriteFull(changedOid, newData); err != nil {
			t.Error(err)
		}
	}
	stats := newStatHooks(g.source.Objects)
	h := &hooked{Objects: g.dstObjects}
	copied0 := make(chan struct{})
	lastPin := names.ObjectName(pinObjects - 1)
	switch c.when {
	case afterPin:
		stats.after = func(oid string, n int) {
			if oid == changedOid && n == 1 {
				change()
			}
		}
	case afterCopy:
		h.after = func(dstOid string) {
			if dstOid == g.dstNames.ObjectName(c.changed) {
				change()
			}
		}
	case betweenPinAndCopy:
		release, pinned := make(chan struct{}), make(chan struct{})
		stats.hold[changedOid] = release
		stats.after = func(oid string, n int) {
			if oid == changedOid && n == 1 {
				change()
				close(pinned)
			}
		}
		h.before = func(dstOid string) {
			if dstOid == g.dstNames.ObjectName(c.changed) {
				close(release)
				<-pinned
			}
		}
	case headAfterRecheck:
		stats.hold[changedOid] = copied0
		h.after = func(dstOid string) {
			if dstOid == g.dstNames.ObjectName(c.changed) {
				close(copied0)
			}
		}
		stats.after = func(oid string, n int) {
			if oid == changedOid && n == 2 {
				change()
			}
		}
	case earlyAfterCopy, afterRecheck:
		stats.hold[lastPin] = copied0
		h.after = func(dstOid string) {
			if dstOid != g.dstNames.ObjectName(0) {
				return
			}
			if c.when == earlyAfterCopy {
				change()
			}
			close(copied0)
		}
		if c.when == afterRecheck {
			stats.after = func(oid string, n int) {
				if oid == changedOid && n == 2 {
					change()
				}
			}
		}
	}
	src := g.source
	src.Objects = stats
	res, err := g.engine.Copy(context.Background(), src, 0, g.dst(g.srcPool, h), 0, pinObjects*objSize,
		radoscp.Options{Window: 2, PinSource: true})
	if len(stats.heldOut) > 0 {
		t.Fatalf("gave up holding the pin of %v: object 0 was not copied before the last pin returned", stats.heldOut)
	}
	if !written {
		t.Fatalf("the writer never ran (stats %v): the race did not happen", stats.stats)
	}
	if c.wantObjects == pinObjects {
		if err != nil {
			t.Fatalf("copy: %v; want a success holding the pinned data", err)
		}
		if !bytes.Equal(g.read(0, pinObjects*objSize), want) {
			t.Fatal("the copy does not hold the source as pinned")
		}
		return
	}
	if !errors.Is(err, radoscp.ErrSourceChanged) {
		t.Fatalf("copy: %v; want ErrSourceChanged", err)
	}
	if ref := g.srcPool.Ref(changedOid); !strings.Contains(err.Error(), ref) {
		t.Fatalf("copy: %v; want it to name %s", err, ref)
	}
	if res.Bytes != c.wantObjects*objSize || !bytes.Equal(g.read(0, res.Bytes), want[:res.Bytes]) {
		t.Fatalf("published %d bytes; want the %d objects before the changed one", res.Bytes, c.wantObjects)
	}
	if left := g.existing(c.wantObjects, pinObjects); len(left) != 0 {
		t.Fatalf("objects %v past the change were not cut back", left)
	}
}

func TestPinnedCopyPromise(t *testing.T) {
	for _, c := range pinCases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, small, pinObjects*obj)
			runPinCase(t, c, pinTarget{engine: f.engine, source: f.source, srcPool: f.srcP,
				dst:        func(_, o store.Objects) radoscp.Destination { f.dst.Objects = o; return f.raw(0) },
				dstObjects: f.dst.Objects, dstNames: dstNames, data: f.data,
				read:     func(off, n uint64) []byte { return f.read(t, off, n) },
				existing: f.objectsFrom})
		})
	}
}

// On the real cluster, through a normal client and through one whose OSD
// replies come up to 500 ms late, so that pins, copies and the writer
// race over many round trips.
func TestRealPinnedCopyPromise(t *testing.T) {
	for _, delay := range []float64{0, 0.5} {
		for _, c := range pinCases {
			name := c.name
			if delay > 0 {
				name = "slow/" + name
			}
			t.Run(name, func(t *testing.T) {
				r := newReal(t, mb1, pinObjects*mib)
				if delay > 0 {
					slow, err := rados.Connect(rados.ConnConfig{ConfPath: test.SlowConf(t, delay)})
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(slow.Close)
					r.useConn(t, slow)
				}
				runPinCase(t, c, pinTarget{engine: r.engine, source: r.source, srcPool: r.a,
					dst:        func(_, o store.Objects) radoscp.Destination { r.dstObjects = o; return r.raw(0) },
					dstObjects: r.dstObjects, dstNames: layout.Prefix(r.dstName), data: r.data,
					read:     func(off, n uint64) []byte { return radosGetObjects(t, layout.Prefix(r.dstName), mib, off, n) },
					existing: func(from, to uint64) []uint64 { return r.existing(t, from, to) }})
			})
		}
	}
}

// The pins of a copy run many at once, wider than the copy's window, and
// ahead of the copies: the first copy-froms complete while pins are still
// outstanding. Objects copied before the last pin returned are re-checked
// once; those copied after it are stat'ed once only.
func TestPinsRunWideAndAheadOfTheCopies(t *testing.T) {
	const objects = 100
	f := newFixture(t, small, objects*obj)
	stats := newStatHooks(f.srcP)
	stats.want = 64
	copied0 := make(chan struct{})
	stats.hold[srcNames.ObjectName(objects-1)] = copied0
	f.source.Objects = stats
	f.dst.Objects = &hooked{Objects: f.dst.Objects, after: func(dstOid string) {
		if dstOid == dstNames.ObjectName(0) {
			close(copied0)
		}
	}}
	if _, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), 0, objects*obj, radoscp.Options{Window: 2, PinSource: true}); err != nil {
		t.Fatal(err)
	}
	if len(stats.heldOut) > 0 {
		t.Fatalf("gave up holding %v: copies did not start before the pins were all in", stats.heldOut)
	}
	if stats.peak < 64 || stats.peak > 128 {
		t.Errorf("%d pins in flight at most; want 64 to 128 for window 2", stats.peak)
	}
	if n := stats.count(srcNames.ObjectName(0)); n != 2 {
		t.Errorf("object 0, copied before the last pin, stat'ed %d times; want 2 (pin and re-check)", n)
	}
	if n := stats.count(srcNames.ObjectName(objects - 1)); n != 1 {
		t.Errorf("the last object stat'ed %d times; want 1 (its copy came after every pin)", n)
	}
	if got := f.dst.maxInFlight.Load(); got > 2 {
		t.Errorf("%d copy-froms in flight; want at most the window, 2", got)
	}
	assertEqual(t, "copy", f.read(t, 0, objects*obj), f.data)
}

// A copy into existing data runs one operation at a time and cannot cut
// back what it wrote past a failure, so a re-check finding an early
// object changed would come too late: it waits for every pin before its
// first copy, and re-checks nothing.
func TestPinnedCopyIntoExistingDataPinsFirst(t *testing.T) {
	const objects = 100
	f := newFixture(t, small, objects*obj)
	stats := newStatHooks(f.srcP)
	f.source.Objects = stats
	var early []string
	f.dst.Objects = &hooked{Objects: f.dst.Objects, before: func(dstOid string) {
		stats.mu.Lock()
		defer stats.mu.Unlock()
		if stats.inflight > 0 || len(stats.stats) < objects {
			early = append(early, dstOid)
		}
	}}
	res, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(objects*obj), 0, objects*obj, radoscp.Options{Window: 16, PinSource: true})
	if err != nil || !res.Serial {
		t.Fatalf("copy: serial %v, %v; want a serial success", res.Serial, err)
	}
	if len(early) > 0 {
		t.Errorf("copy-froms %v sent before every pin had returned", early)
	}
	for oid, n := range stats.stats {
		if n != 1 {
			t.Errorf("%s stat'ed %d times; want once", oid, n)
		}
	}
	assertEqual(t, "copy", f.read(t, 0, objects*obj), f.data)
}

// radosGetObjects reads [off, off+n) of a destination of whole objects of
// objSize in radoscp-b with the rados CLI, a reader that is not radoscp:
// a missing object reads as zeros.
func radosGetObjects(t *testing.T, names layout.Namer, objSize, off, n uint64) []byte {
	t.Helper()
	out := make([]byte, 0, n)
	for obj := off / objSize; obj*objSize < off+n; obj++ {
		path := filepath.Join(t.TempDir(), "obj")
		data := make([]byte, objSize)
		if o, err := test.RadosCLI(test.Conf(t), "-p", "radoscp-b", "get", names.ObjectName(obj), path); err == nil {
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			copy(data, got)
		} else if !strings.Contains(err.Error(), "No such file") {
			t.Fatalf("rados get %s: %v\n%s", names.ObjectName(obj), err, o)
		}
		from, to := max(off, obj*objSize)-obj*objSize, min(off+n, (obj+1)*objSize)-obj*objSize
		out = append(out, data[from:to]...)
	}
	return out
}
