package radoscp_test

import (
	"bytes"
	"context"
	"errors"
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
// submitted and after once it has completed and been waited for.
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
	return &hookedPending{Pending: p, after: func() { h.after(dstOid) }}, nil
}

type hookedPending struct {
	store.Pending
	once  sync.Once
	after func()
}

func (p *hookedPending) Wait() error {
	err := p.Pending.Wait()
	p.once.Do(p.after)
	return err
}

// pinCase is one writer racing a pinned copy of objects objects: change
// runs with the source pool when the copy-from of destination object at is
// submitted (or, with afterCopy, once it has completed), and the copy must
// then copy wantObjects objects and fail naming changedObj (or succeed,
// with wantObjects == objects).
type pinCase struct {
	name        string
	hole        int64 // a source object removed before the copy; -1 for none
	at          uint64
	afterCopy   bool
	changed     uint64
	fill        bool // change fills the hole instead of rewriting changed
	wantObjects uint64
}

// The promise of a pinned copy: it holds the whole source as it was when
// the last pin returned, or fails naming an object that changed. A change
// to an object the copy has not reached yet fails it (the pins are all
// taken before the first copy, so the change comes after its pin); a
// change to an object after its copy does not, and the copy holds the
// pinned data; a hole filled during the copy is a change.
var pinCases = []pinCase{
	{name: "object not reached yet rewritten", hole: -1, at: 0, changed: 7, wantObjects: 7},
	{name: "object rewritten after its copy", hole: -1, at: 1, afterCopy: true, changed: 1, wantObjects: 8},
	{name: "hole filled", hole: 5, at: 1, changed: 5, fill: true, wantObjects: 5},
	{name: "hole filled after its copy", hole: 5, at: 5, afterCopy: true, changed: 5, fill: true, wantObjects: 8},
}

// runPinCase copies 8 objects with window 2 through dst (source and
// destination pools as the engine sees them); srcPool is where the writer
// writes; read reads the destination back; existing lists destination
// objects that exist.
func runPinCase(t *testing.T, c pinCase, engine *radoscp.Engine, source radoscp.Source, srcPool store.Objects,
	dst func(store.Objects) radoscp.Destination, dstObjects store.Objects, dstNames layout.Namer,
	data []byte, read func(off, n uint64) []byte, existing func(from, to uint64) []uint64) {
	t.Helper()
	const objects = 8
	objSize := source.Layout.ObjectSize
	want := bytes.Clone(data)
	if c.hole >= 0 {
		if err := srcPool.Remove(source.Names.ObjectName(uint64(c.hole))); err != nil {
			t.Fatal(err)
		}
		clear(want[uint64(c.hole)*objSize : uint64(c.hole+1)*objSize])
	}
	change := func(dstOid string) {
		if dstOid != dstNames.ObjectName(c.at) {
			return
		}
		newData := bytes.Repeat([]byte{0xee}, int(objSize))
		if c.fill {
			newData = []byte("filled")
		}
		if err := srcPool.WriteFull(source.Names.ObjectName(c.changed), newData); err != nil {
			t.Error(err)
		}
	}
	h := &hooked{Objects: dstObjects}
	if c.afterCopy {
		h.after = change
	} else {
		h.before = change
	}
	res, err := engine.Copy(context.Background(), source, 0, dst(h), 0, objects*objSize, radoscp.Options{Window: 2, PinSource: true})
	if c.wantObjects == objects {
		if err != nil {
			t.Fatalf("copy: %v; want a success holding the pinned data", err)
		}
		if !bytes.Equal(read(0, objects*objSize), want) {
			t.Fatal("the copy does not hold the source as pinned")
		}
		return
	}
	if !errors.Is(err, radoscp.ErrSourceChanged) {
		t.Fatalf("copy: %v; want ErrSourceChanged", err)
	}
	if ref := srcPool.Ref(source.Names.ObjectName(c.changed)); !strings.Contains(err.Error(), ref) {
		t.Fatalf("copy: %v; want it to name %s", err, ref)
	}
	if res.Bytes != c.wantObjects*objSize || !bytes.Equal(read(0, res.Bytes), want[:res.Bytes]) {
		t.Fatalf("published %d bytes; want the %d objects before the changed one", res.Bytes, c.wantObjects)
	}
	if left := existing(c.wantObjects, objects); len(left) != 0 {
		t.Fatalf("objects %v past the change were not cut back", left)
	}
}

func TestPinnedCopyPromise(t *testing.T) {
	for _, c := range pinCases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, small, 8*obj)
			runPinCase(t, c, f.engine, f.source, f.srcP,
				func(o store.Objects) radoscp.Destination { f.dst.Objects = o; return f.raw(0) },
				f.dst.Objects, dstNames, f.data,
				func(off, n uint64) []byte { return f.read(t, off, n) }, f.objectsFrom)
		})
	}
}

// On the real cluster, through a client whose OSD replies come up to
// 500 ms late, so that copies and the writer race over many round trips.
func TestRealPinnedCopyPromiseSlowClient(t *testing.T) {
	for _, c := range pinCases {
		t.Run(c.name, func(t *testing.T) {
			r := newReal(t, mb1, 8*mib)
			slow, err := rados.Connect(rados.ConnConfig{ConfPath: test.SlowConf(t, 0.5)})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(slow.Close)
			r.useConn(t, slow)
			runPinCase(t, c, r.engine, r.source, r.a,
				func(o store.Objects) radoscp.Destination { r.dstObjects = o; return r.raw(0) },
				r.dstObjects, layout.Prefix(r.dstName), r.data,
				func(off, n uint64) []byte { return r.read(t, off, n) },
				func(from, to uint64) []uint64 { return r.existing(t, from, to) })
		})
	}
}

// statGate holds every stat until want of them are in flight at once,
// and records whether one was still in flight when a copy-from was sent.
type statGate struct {
	store.Objects
	want int

	mu       sync.Mutex
	inflight int
	peak     int
	total    int
	open     chan struct{}
	opened   bool
}

func (g *statGate) Stat(oid string) (store.ObjectStat, error) {
	g.mu.Lock()
	g.inflight++
	g.total++
	g.peak = max(g.peak, g.inflight)
	if g.inflight == g.want && !g.opened {
		g.opened = true
		close(g.open)
	}
	g.mu.Unlock()
	select {
	case <-g.open:
	case <-time.After(10 * time.Second):
		// A watchdog: a narrower pin phase never reaches want, and
		// fails below instead of hanging.
		g.mu.Lock()
		if !g.opened {
			g.opened = true
			close(g.open)
		}
		g.mu.Unlock()
	}
	st, err := g.Objects.Stat(oid)
	g.mu.Lock()
	g.inflight--
	g.mu.Unlock()
	return st, err
}

// The pins of a copy run many at once, wider than the copy's window, and
// every one has returned before the first copy-from is sent: that order is
// what makes a pinned copy a point-in-time image (see pins).
func TestPinsRunWideAndBeforeTheFirstCopy(t *testing.T) {
	const objects = 100
	f := newFixture(t, small, objects*obj)
	g := &statGate{Objects: f.srcP, want: 64, open: make(chan struct{})}
	f.source.Objects = g
	var early []string
	f.dst.Objects = &hooked{Objects: f.dst.Objects, before: func(dstOid string) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.inflight > 0 || g.total < objects {
			early = append(early, dstOid)
		}
	}}
	if _, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), 0, objects*obj, radoscp.Options{Window: 2, PinSource: true}); err != nil {
		t.Fatal(err)
	}
	if g.peak < 64 || g.peak > 128 {
		t.Errorf("%d pins in flight at most; want 64 to 128 for window 2", g.peak)
	}
	if len(early) > 0 {
		t.Errorf("copy-froms %v sent before every pin had returned", early)
	}
}
