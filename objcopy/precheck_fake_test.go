package objcopy

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/address"
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

// TestRawPrecheckReadsLockObjectWithSource: a raw copy reads its
// destination's lock object while it checks that its source exists, not
// after: one round trip to the OSDs for both. The source's first stat
// waits (10 s at most) for the lock object's read to start; were they in
// sequence, that wait would run out.
func TestRawPrecheckReadsLockObjectWithSource(t *testing.T) {
	f := &handshakePools{fakePools: newFakePools("a", "b"), lockRead: make(chan struct{})}
	a := f.s.Pool("a")
	for i := range 2 {
		if err := a.WriteFull(fmt.Sprintf("s.%08x", i), make([]byte, small.ObjectSize)); err != nil {
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
	req := Request{Src: src, Dst: dst, Layout: small, Width: 4, VerifyWindow: 4, Length: 2 * small.ObjectSize, HaveLength: true,
		Options: radoscp.Options{Window: 4, Clock: frozen{}}}
	c := New(radoscp.NewEngine(nil, nil), f, nil)
	if _, err := c.Copy(context.Background(), req); err != nil {
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
