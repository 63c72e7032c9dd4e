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
	"github.com/radoscp/radoscp/store"
)

// writeDuring makes the fake write newData to source object k when the
// copy of destination object at is submitted: a writer racing the copy.
func writeDuring(t *testing.T, f *fixture, at, k uint64, newData []byte) {
	t.Helper()
	trigger := dstNames.ObjectName(at)
	f.store.Latency = func(dstOid string) time.Duration {
		if dstOid == trigger {
			if err := f.srcP.WriteFull(srcNames.ObjectName(k), newData); err != nil {
				t.Error(err)
			}
		}
		return 0
	}
}

// rewriteAfterPin makes src rewrite source object k (in pool, unwrapped)
// with newData right after its pin returned, before its copy can start.
func rewriteAfterPin(t *testing.T, src *radoscp.Source, pool store.Objects, k uint64, newData []byte) *statHooks {
	t.Helper()
	s := newStatHooks(src.Objects)
	oid := src.Names.ObjectName(k)
	s.after = func(o string, n int) {
		if o == oid && n == 1 {
			if err := pool.WriteFull(oid, newData); err != nil {
				t.Error(err)
			}
		}
	}
	src.Objects = s
	return s
}

// A source object rewritten after the copy started: without pinning the
// copy succeeds with old and new data mixed; pinned (the object rewritten
// right after its pin), it fails with ErrSourceChanged, publishes only the
// objects before the changed one, and cuts back the rest.
func TestPinnedCopyDetectsAChangedSource(t *testing.T) {
	newData := bytes.Repeat([]byte{0xee}, obj)
	for _, pin := range []bool{false, true} {
		f := newFixture(t, small, 12*obj)
		if pin {
			rewriteAfterPin(t, &f.source, f.srcP, 6, newData)
		} else {
			writeDuring(t, f, 2, 6, newData)
		}
		res, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), 0, 12*obj, radoscp.Options{Window: 2, PinSource: pin})
		if !pin {
			if err != nil || !bytes.Equal(f.read(t, 6*obj, obj), newData) {
				t.Fatalf("unpinned copy: %v; want a silent success carrying the new object 6", err)
			}
			continue
		}
		if !errors.Is(err, radoscp.ErrSourceChanged) || !errors.Is(err, store.ErrRange) {
			t.Fatalf("pinned copy: %v; want ErrSourceChanged from ERANGE", err)
		}
		if res.Bytes != 6*obj || !bytes.Equal(f.read(t, 0, 6*obj), f.data[:6*obj]) {
			t.Fatalf("pinned copy published %d bytes; want the 6 objects before the changed one", res.Bytes)
		}
		if left := f.objectsFrom(6, 12); len(left) != 0 {
			t.Fatalf("objects %v past the change were not cut back", left)
		}
	}
}

// A hole filled after its pin is a change too.
func TestPinnedCopyDetectsAFilledHole(t *testing.T) {
	f := newFixture(t, small, 8*obj)
	if err := f.srcP.Remove(srcNames.ObjectName(5)); err != nil {
		t.Fatal(err)
	}
	rewriteAfterPin(t, &f.source, f.srcP, 5, []byte("new"))
	res, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), 0, 8*obj, radoscp.Options{Window: 2, PinSource: true})
	if !errors.Is(err, radoscp.ErrSourceChanged) || res.Bytes != 5*obj {
		t.Fatalf("copy: %d bytes, %v; want 5 objects and ErrSourceChanged", res.Bytes, err)
	}
}

// changingReads rewrites a source object just before the client reads it.
type changingReads struct {
	store.Objects
	oid  string
	done bool
}

func (c *changingReads) Read(oid string, buf []byte, off uint64) (int, error) {
	if oid == c.oid && !c.done {
		c.done = true
		if err := c.Objects.Write(oid, []byte("racing writer"), 0); err != nil {
			return 0, err
		}
	}
	return c.Objects.Read(oid, buf, off)
}

// Data read through the client is checked against the pinned versions.
func TestPinnedCopyChecksClientReads(t *testing.T) {
	f := newFixture(t, small, 4*obj)
	f.source.Objects = &changingReads{Objects: f.srcP, oid: srcNames.ObjectName(2)}
	// A destination offset off object boundaries: everything goes
	// through the client.
	res, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), 100, 4*obj, radoscp.Options{Window: 1, PinSource: true})
	if !errors.Is(err, radoscp.ErrSourceChanged) || res.Bytes >= 3*obj {
		t.Fatalf("copy: %d bytes, %v; want a failure at source object 2", res.Bytes, err)
	}
}

// On the real cluster: a source object rewritten during a pinned copy,
// right after its pin, makes the OSD refuse its copy-from (ERANGE); the
// copy fails with ErrSourceChanged and publishes only the objects before
// it.
func TestRealPinnedCopyDetectsAChangedSource(t *testing.T) {
	l := layout.Layout{StripeUnit: 1 << 20, StripeCount: 1, ObjectSize: 1 << 20}
	r := newReal(t, l, 12<<20)
	rewriteAfterPin(t, &r.source, r.a, 6, bytes.Repeat([]byte{0xee}, 1<<20))
	res, err := r.engine.Copy(context.Background(), r.source, 0, r.raw(0), 0, 12<<20, radoscp.Options{Window: 2, PinSource: true})
	if !errors.Is(err, radoscp.ErrSourceChanged) || !errors.Is(err, store.ErrRange) {
		t.Fatalf("copy: %v; want ErrSourceChanged from the OSD's ERANGE", err)
	}
	if res.Bytes != 6<<20 || !bytes.Equal(r.read(t, 0, 6<<20), r.data[:6<<20]) {
		t.Fatalf("published %d bytes; want the 6 objects before the changed one", res.Bytes)
	}
	if left := r.existing(t, 6, 12); len(left) != 0 {
		t.Fatalf("objects %v past the change were not cut back", left)
	}
}

// statCounter counts stats per object.
type statCounter struct {
	store.Objects
	mu    sync.Mutex
	stats map[string]int
}

func (s *statCounter) Stat(oid string) (store.ObjectStat, error) {
	s.mu.Lock()
	s.stats[oid]++
	s.mu.Unlock()
	return s.Objects.Stat(oid)
}

// A client copy of a striped range reads each object several times but
// checks its pinned version once: one stat to pin, one after the reads.
func TestPinnedClientCopyStatsEachObjectOnce(t *testing.T) {
	l := layout.Layout{StripeUnit: 64 << 10, StripeCount: 3, ObjectSize: 256 << 10}
	f := newFixture(t, l, int(2*l.SetSize()))
	sc := &statCounter{Objects: f.srcP, stats: map[string]int{}}
	f.source.Objects = sc
	// An unaligned destination: everything through the client, in
	// chunks that each touch every object of a set several times.
	if _, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), 100, 2*l.SetSize(), radoscp.Options{Window: 2, PinSource: true, Chunk: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	for oid, n := range sc.stats {
		if n > 2*2 { // each object is read by at most two chunks
			t.Errorf("%s stat'ed %d times", oid, n)
		}
	}
	if len(sc.stats) != 6 {
		t.Errorf("stats on %d objects, want the 6 of the copy", len(sc.stats))
	}
}

// A copy-from of the first window goes without its pin, and the OSD may
// run it after the object's re-check: a change made after the re-check
// and before the copy read the source is seen only in the version the
// copy's reply names, which must be the pinned one. Object 0's pin is
// held until its copy has been submitted, so the copy goes without it
// and the object is early, to be re-checked.
func TestPinnedCopyChecksTheVersionCopied(t *testing.T) {
	f := newFixture(t, small, 8*obj)
	oid := srcNames.ObjectName(0)
	submitted, rechecked := make(chan struct{}), make(chan struct{})
	stats := newStatHooks(f.source.Objects)
	stats.hold[oid] = submitted
	f.store.Latency = func(dstOid string) time.Duration {
		if dstOid == dstNames.ObjectName(0) {
			close(submitted)
		}
		return 0
	}
	stats.after = func(o string, n int) {
		if o == oid && n == 2 {
			if err := f.srcP.WriteFull(oid, []byte("after the re-check")); err != nil {
				t.Error(err)
			}
			close(rechecked)
		}
	}
	f.source.Objects = stats
	f.store.BeforeCopy = func(dstOid string) {
		if dstOid == dstNames.ObjectName(0) {
			select {
			case <-rechecked:
			case <-time.After(holdFor):
				t.Error("object 0 was not re-checked while its copy was held")
			}
		}
	}
	res, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), 0, 8*obj, radoscp.Options{Window: 2, PinSource: true})
	if !errors.Is(err, radoscp.ErrSourceChanged) || !strings.Contains(err.Error(), "when copied") {
		t.Fatalf("copy: %v; want ErrSourceChanged for the version object 0's copy named", err)
	}
	if res.Bytes != 0 {
		t.Fatalf("published %d bytes; want none: object 0 changed", res.Bytes)
	}
	if stats.count(oid) != 2 || len(stats.heldOut) > 0 {
		t.Fatalf("object 0 stat'ed %d times, pins held out %v; want its pin, released by its copy's submission, and its re-check", stats.count(oid), stats.heldOut)
	}
}
