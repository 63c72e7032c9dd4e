package objcopy

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/address"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados/fake"
	"github.com/radoscp/radoscp/rados/faults"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
)

// fakePools serves Pools from a fake store: pools named in pools exist;
// a pool with an injector is seen through it.
type fakePools struct {
	s      *fake.Store
	pools  map[string]bool
	faults map[string]*faults.Injector
	// snaps are the pool snapshots there are, by name: reads at one
	// read the pool's head (the fake has no snapshots).
	snaps map[string]*fakeSnap
}

func newFakePools(names ...string) *fakePools {
	f := &fakePools{s: fake.New(), pools: map[string]bool{}, faults: map[string]*faults.Injector{}}
	for _, n := range names {
		f.pools[n] = true
	}
	return f
}

func (f *fakePools) Pool(pool, ns string) (store.Objects, error) {
	if !f.pools[pool] {
		return nil, &store.Error{Op: "open pool", Object: pool, Errno: syscall.ENOENT}
	}
	var objs store.Objects = f.s.Pool(pool)
	if in := f.faults[pool]; in != nil {
		objs = in.Wrap(objs)
	}
	return objs, nil
}

func (f *fakePools) PoolAt(pool, ns, snap string) (store.Objects, Snapshot, error) {
	if s := f.snaps[snap]; s != nil {
		objs, err := f.Pool(pool, ns)
		return objs, s, err
	}
	return nil, nil, &store.Error{Op: "lookup snapshot " + snap, Object: pool, Errno: syscall.ENOENT, Detail: "the fake has no snapshots"}
}

func (f *fakePools) Full(string) error { return nil }

// frozen is a clock that never moves: the engine takes no timed
// checkpoint, so the store operations of a copy are the same every run.
type frozen struct{}

func (frozen) Now() time.Time { return time.Unix(0, 0) }

var small = layout.Layout{StripeUnit: 64 << 10, StripeCount: 1, ObjectSize: 64 << 10}

// stripedSource makes striped object name in p holding size random
// bytes, and returns them.
func stripedSource(t *testing.T, p store.Objects, name string, size uint64) []byte {
	t.Helper()
	data := make([]byte, size)
	r := rand.New(rand.NewPCG(size, 7))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	s, err := truncate.OpenStriper(p, name, small)
	if err != nil {
		t.Fatal(err)
	}
	for ext := range small.Extents(0, size) {
		if err := p.Write(layout.Striper(name).ObjectName(ext.ObjectNo), data[ext.FileOff:ext.FileOff+ext.Length], ext.ObjectOff); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Publish(size); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return data
}

// readStriped reads striped object name as a reader would: its size,
// then its bytes (a missing object reads as zeros).
func readStriped(t *testing.T, p store.Objects, name string) []byte {
	t.Helper()
	meta, err := truncate.ReadStriperMeta(p, name)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, meta.Size)
	for ext := range meta.Layout.Extents(0, meta.Size) {
		_, err := p.Read(layout.Striper(name).ObjectName(ext.ObjectNo), data[ext.FileOff:ext.FileOff+ext.Length], ext.ObjectOff)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
	}
	return data
}

// record is the record of the copy in progress on striped object name.
func record(t *testing.T, p store.Objects, name string) []byte {
	t.Helper()
	b, err := truncate.ReadStriperRecord(p, name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func striped(t *testing.T, s string) address.Address {
	t.Helper()
	a, err := address.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// wholeCopy is a whole copy from src to dst with a small window.
func wholeCopy(t *testing.T, src, dst string) Request {
	return Request{Src: striped(t, src), Dst: striped(t, dst), Layout: small, Width: 4, VerifyWindow: 4,
		Options: radoscp.Options{Window: 4, Clock: frozen{}}}
}

func layoutName(name string, obj uint64) string { return layout.Striper(name).ObjectName(obj) }

// fakeSnap is a pool snapshot that is removed once it has been checked
// live times.
type fakeSnap struct {
	name   string
	live   int
	checks int
}

func (s *fakeSnap) Check() error {
	s.checks++
	if s.checks > s.live {
		return fmt.Errorf("%w: %s is gone", store.ErrSnapshotRemoved, s)
	}
	return nil
}

func (s *fakeSnap) String() string { return "pool snapshot " + s.name }
