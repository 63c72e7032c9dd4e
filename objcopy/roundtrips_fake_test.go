package objcopy

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/address"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
)

// handshakePools makes the first source stat wait until the destination's
// lock object is being read: the two reads can only both finish if they
// are in flight at once.
type handshakePools struct {
	*fakePools
	lockRead chan struct{} // closed by the lock object's stat
	waited   atomic.Bool   // a source stat waited for it
	timedOut atomic.Bool   // and gave up after 10 s
}

type hookedStat struct {
	store.Objects
	stat func(oid string)
}

func (h hookedStat) Stat(oid string) (store.ObjectStat, error) {
	h.stat(oid)
	return h.Objects.Stat(oid)
}

func (f *handshakePools) Pool(pool, ns string) (store.Objects, error) {
	objs, err := f.fakePools.Pool(pool, ns)
	if err != nil {
		return nil, err
	}
	switch pool {
	case "b":
		return hookedStat{objs, func(oid string) {
			if oid == truncate.RawLockObject("d") {
				close(f.lockRead)
			}
		}}, nil
	default:
		return hookedStat{objs, func(string) {
			if !f.waited.CompareAndSwap(false, true) {
				return
			}
			select {
			case <-f.lockRead:
			case <-time.After(10 * time.Second):
				f.timedOut.Store(true)
			}
		}}, nil
	}
}

// twoObjectCopy writes two source objects, rados:a/s, and returns a
// request copying them to rados:b/d, pinned or not.
func twoObjectCopy(t *testing.T, f *fakePools, pin bool) Request {
	t.Helper()
	for i := range 2 {
		if err := f.s.Pool("a").WriteFull(fmt.Sprintf("s.%08x", i), make([]byte, small.ObjectSize)); err != nil {
			t.Fatal(err)
		}
	}
	src, err := address.Parse("rados:a/s")
	if err != nil {
		t.Fatal(err)
	}
	dst, err := address.Parse("rados:b/d")
	if err != nil {
		t.Fatal(err)
	}
	return Request{Src: src, Dst: dst, Layout: small, Width: 4, VerifyWindow: 4, Length: 2 * small.ObjectSize, HaveLength: true,
		Options: radoscp.Options{Window: 4, PinSource: pin, Clock: frozen{}}}
}

// TestRawPrecheckReadsLockObjectWithSource: a raw copy reads its
// destination's lock object while it checks that its source exists, not
// after: one round trip to the OSDs for both. The source's first stat
// waits (10 s at most) for the lock object's read to start; were they in
// sequence, that wait would run out.
func TestRawPrecheckReadsLockObjectWithSource(t *testing.T) {
	f := &handshakePools{fakePools: newFakePools("a", "b"), lockRead: make(chan struct{})}
	req := twoObjectCopy(t, f.fakePools, false)
	if _, err := New(radoscp.NewEngine(nil, nil), f, nil).Copy(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if !f.waited.Load() {
		t.Fatal("no source stat ran: the test proves nothing")
	}
	select {
	case <-f.lockRead:
	default:
		t.Fatal("the lock object was never stat'ed")
	}
	if f.timedOut.Load() {
		t.Fatal("the source's stat waited 10 s for the lock object's read: they ran one after the other")
	}
	if f.s.Pool("b").Has(truncate.RawLockObject("d")) {
		t.Error("the copy left its lock object")
	}
}

// lockAfterPins makes the destination's copy lock wait until the source
// has been stat'ed more than once: by the precheck (one stat, its first
// object) and then by a pin. Were the pins started only by the engine,
// after the lock, that wait would run out.
type lockAfterPins struct {
	*fakePools
	sourceStats atomic.Int64
	pinned      chan struct{} // closed at the source's second stat
	timedOut    atomic.Bool
}

type hookedLock struct {
	store.Objects
	lock func(oid string)
}

func (h hookedLock) LockExclusive(oid, name, cookie, desc string, d time.Duration, renew bool) (store.LockResult, error) {
	if !renew {
		h.lock(oid)
	}
	return h.Objects.LockExclusive(oid, name, cookie, desc, d, renew)
}

func (f *lockAfterPins) Pool(pool, ns string) (store.Objects, error) {
	objs, err := f.fakePools.Pool(pool, ns)
	if err != nil {
		return nil, err
	}
	if pool == "b" {
		return hookedLock{objs, func(string) {
			select {
			case <-f.pinned:
			case <-time.After(10 * time.Second):
				f.timedOut.Store(true)
			}
		}}, nil
	}
	return hookedStat{objs, func(string) {
		if f.sourceStats.Add(1) == 2 {
			close(f.pinned)
		}
	}}, nil
}

// TestRawCopyPinsWhileTakingTheLock: a raw copy's pins run while its
// destination's lock object is made and locked, not after: the lock is
// taken only once a pin has started.
func TestRawCopyPinsWhileTakingTheLock(t *testing.T) {
	f := &lockAfterPins{fakePools: newFakePools("a", "b"), pinned: make(chan struct{})}
	req := twoObjectCopy(t, f.fakePools, true)
	out, err := New(radoscp.NewEngine(nil, nil), f, nil).Copy(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if f.timedOut.Load() {
		t.Fatal("the lock waited 10 s for a pin: the pins started after it")
	}
	// One stat by the precheck and one pin per object; an object whose
	// copy started before the other's pin returned is re-checked once.
	if n := f.sourceStats.Load(); n < 3 || n > 5 {
		t.Errorf("the source was stat'ed %d times; want 3 to 5: one by the precheck, one pin per object, and a re-check per early object", n)
	}
	if out.Result.Bytes != 2*small.ObjectSize {
		t.Errorf("copied %d bytes", out.Result.Bytes)
	}
}

// TestRequireSourceObjectStatsTheFirst: a source whose first object is
// there is checked with one stat; one whose first object is missing is
// searched further (the search may stat one object past the one it
// finds before it sees the find); one with none fails with ENOENT naming
// the first.
func TestRequireSourceObjectStatsTheFirst(t *testing.T) {
	for _, tc := range []struct {
		name        string
		objects     []int
		least, most int64 // stats
		wantErr     bool
	}{
		{"first-there", []int{0, 1, 2, 3}, 1, 1, false},
		{"first-missing", []int{2}, 1 + 3, 1 + 4, false},
		{"none", nil, 1 + 4, 1 + 4, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakePools("a")
			a := f.s.Pool("a")
			for _, i := range tc.objects {
				if err := a.WriteFull(fmt.Sprintf("s.%08x", i), make([]byte, small.ObjectSize)); err != nil {
					t.Fatal(err)
				}
			}
			var stats atomic.Int64
			src := radoscp.Source{Objects: hookedStat{a, func(string) { stats.Add(1) }}, Layout: small, Names: layout.Prefix("s")}
			req := Request{Src: address.Address{Scheme: address.Rados, Pool: "a", Name: "s"}, Length: 4 * small.ObjectSize, Width: 1}
			err := requireSourceObject(src, req)
			if tc.wantErr != (err != nil) || tc.wantErr && (store.ErrnoOf(err) != syscall.ENOENT || !strings.Contains(err.Error(), "a/s.00000000")) {
				t.Fatalf("error %v; want an error: %v (ENOENT naming a/s.00000000)", err, tc.wantErr)
			}
			if n := stats.Load(); n < tc.least || n > tc.most {
				t.Errorf("%d stats; want %d to %d", n, tc.least, tc.most)
			}
		})
	}
}
