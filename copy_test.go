package radoscp_test

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados/fake"
	"github.com/radoscp/radoscp/rados/faults"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
)

var (
	srcNames = layout.Prefix("src")
	dstNames = layout.Prefix("dst")
)

// fixture is a source file in a fake store and a destination pool that
// faults and counting can wrap.
type fixture struct {
	store  *fake.Store
	srcP   *fake.Pool
	dstP   *fake.Pool
	dst    *counting // what the engine writes through
	data   []byte
	source radoscp.Source
	obs    *recorder
	engine *radoscp.Engine
}

func newFixture(t testing.TB, l layout.Layout, size int, rules ...faults.Rule) *fixture {
	f := &fixture{store: fake.New(), data: randomData(uint64(size), size), obs: &recorder{}}
	f.srcP, f.dstP = f.store.Pool("a"), f.store.Pool("b")
	writeFile(t, f.srcP, l, srcNames, 0, f.data)
	var dst store.Objects = f.dstP
	if len(rules) > 0 {
		dst = faults.New(1, rules...).Wrap(dst)
	}
	f.dst = &counting{Objects: dst}
	f.source = radoscp.Source{Objects: f.srcP, Layout: l, Names: srcNames, Size: uint64(size)}
	f.engine = radoscp.NewEngine(f.obs, nil)
	return f
}

func (f *fixture) raw(eof uint64) *truncate.Raw {
	return truncate.NewRaw(f.dst, f.source.Layout, "dst", eof)
}

func (f *fixture) read(t testing.TB, off, n uint64) []byte {
	return readFile(t, f.dstP, f.source.Layout, dstNames, off, n)
}

// objectsFrom lists destination object numbers >= from that exist.
func (f *fixture) objectsFrom(from, to uint64) []uint64 {
	var found []uint64
	for i := from; i < to; i++ {
		if f.dstP.Has(dstNames.ObjectName(i)) {
			found = append(found, i)
		}
	}
	return found
}

const obj = 64 << 10

func TestStripedLayout(t *testing.T) {
	set := striped.SetSize()
	f := newFixture(t, striped, int(4*set+5000))
	res, err := f.engine.Copy(context.Background(), f.source, 0, truncate.NewRaw(f.dst, striped, "dst", 0), 0, 4*set+5000, radoscp.Options{Window: 8})
	if err != nil {
		t.Fatal(err)
	}
	if res.Objects != 12 || res.Bytes != 4*set+5000 {
		t.Fatalf("result %+v", res)
	}
	assertEqual(t, "striped copy", readFile(t, f.dstP, striped, dstNames, 0, 4*set+5000), f.data)
}

func TestStripedFailureMidSetPublishesWholeSets(t *testing.T) {
	set := striped.SetSize()
	f := newFixture(t, striped, int(4*set))
	faulty := faults.New(1, faults.Rule{Kind: faults.Copy, Object: dstNames.ObjectName(7), Errno: syscall.EIO})
	dst := truncate.NewRaw(faulty.Wrap(f.dstP), striped, "dst", 0)
	res, err := f.engine.Copy(context.Background(), f.source, 0, dst, 0, 4*set, radoscp.Options{Window: 12})
	if !errors.Is(err, store.ErrIO) {
		t.Fatalf("got %v, want EIO", err)
	}
	// Object 7 is in set 2: sets 0 and 1 are the prefix.
	if res.Bytes != 2*set || res.PublishedEOF != 2*set {
		t.Fatalf("result %+v", res)
	}
	assertEqual(t, "prefix", readFile(t, f.dstP, striped, dstNames, 0, 2*set), f.data[:2*set])
	if left := f.objectsFrom(6, 12); len(left) != 0 {
		t.Fatalf("objects %v past the prefix survived", left)
	}
}

func TestSubmissionFailureAlone(t *testing.T) {
	f := newFixture(t, small, 10*obj, faults.Rule{Kind: faults.SubmitCopy, Object: dstNames.ObjectName(6), Errno: syscall.ENOMEM})
	res, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), 0, 10*obj, radoscp.Options{Window: 4})
	if !errors.Is(err, syscall.ENOMEM) || res.Bytes != 6*obj || res.PublishedEOF != 6*obj {
		t.Fatalf("got %+v, %v; want ENOMEM after 6 objects", res, err)
	}
}

func TestOtherErrorsDoNotFallBack(t *testing.T) {
	f := newFixture(t, small, 4*obj, faults.Rule{Kind: faults.Copy, Object: dstNames.ObjectName(1), Errno: syscall.EPERM})
	_, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), 0, 4*obj, radoscp.Options{Window: 4})
	if !errors.Is(err, store.ErrPermission) || !f.engine.Offload("a", "b") {
		t.Fatalf("got %v, offload %v", err, f.engine.Offload("a", "b"))
	}
}

func TestMissingSourceObjectIsAHole(t *testing.T) {
	f := newFixture(t, small, 6*obj)
	if err := f.srcP.Remove(srcNames.ObjectName(2)); err != nil {
		t.Fatal(err)
	}
	res, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), 0, 6*obj, radoscp.Options{Window: 4})
	if err != nil || res.Bytes != 6*obj {
		t.Fatalf("%+v, %v", res, err)
	}
	if f.dstP.Has(dstNames.ObjectName(2)) {
		t.Fatal("a hole in the source wrote a destination object")
	}
	want := append([]byte{}, f.data...)
	clear(want[2*obj : 3*obj])
	assertEqual(t, "copy with hole", f.read(t, 0, 6*obj), want)
}

func TestCancelPublishesPrefixAndDrains(t *testing.T) {
	f := newFixture(t, small, 64*obj)
	f.store.Latency = func(string) time.Duration { return 5 * time.Millisecond }
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	res, err := f.engine.Copy(ctx, f.source, 0, f.raw(0), 0, 64*obj, radoscp.Options{Window: 4})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if res.Bytes == 0 || res.Bytes >= 64*obj || res.Bytes%obj != 0 || res.PublishedEOF != res.Bytes {
		t.Fatalf("result %+v", res)
	}
	if f.dst.inFlight.Load() != 0 {
		t.Fatalf("%d copies still in flight after Copy returned", f.dst.inFlight.Load())
	}
	assertEqual(t, "prefix", f.read(t, 0, res.Bytes), f.data[:res.Bytes])
	if left := f.objectsFrom(res.Bytes/obj, 64); len(left) != 0 {
		t.Fatalf("objects %v past the published EOF", left)
	}
}

func TestInvalidInputWritesNothing(t *testing.T) {
	f := newFixture(t, small, 4*obj)
	bad := small
	bad.StripeUnit = 1000
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"past source EOF", func() error {
			_, err := f.engine.Copy(context.Background(), f.source, obj, f.raw(0), 0, 4*obj, radoscp.Options{})
			return err
		}, "past the source's EOF"},
		{"overflow", func() error {
			_, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), ^uint64(0)-5, obj, radoscp.Options{})
			return err
		}, "overflows"},
		{"invalid layout", func() error {
			_, err := f.engine.Copy(context.Background(), f.source, 0, truncate.NewRaw(f.dst, bad, "dst", 0), 0, obj, radoscp.Options{})
			return err
		}, "1000"},
		{"same objects", func() error {
			_, err := f.engine.Copy(context.Background(), f.source, 0, truncate.NewRaw(f.srcP, small, "src", 0), obj/2, obj, radoscp.Options{})
			return err
		}, "overlap"},
	}
	for _, tc := range cases {
		if err := tc.run(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if left := f.objectsFrom(0, 1<<10); len(left) != 0 || f.dst.submits.Load() != 0 {
		t.Fatalf("invalid input wrote objects %v", left)
	}
}

func TestOffloadOnlyRefusesClientCopies(t *testing.T) {
	f := newFixture(t, small, 4*obj)
	_, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), 100, obj, radoscp.Options{OffloadOnly: true})
	if !errors.Is(err, radoscp.ErrInvalid) || !errors.Is(err, radoscp.ErrOffloadOnly) {
		t.Fatalf("got %v", err)
	}
	if left := f.objectsFrom(0, 8); len(left) != 0 {
		t.Fatalf("objects %v written", left)
	}
}

// Every destination kind is what the engine consumes.
var (
	_ radoscp.Destination = (*truncate.Raw)(nil)
	_ radoscp.Destination = (*truncate.Striper)(nil)
	_ radoscp.Destination = (*truncate.CephFS)(nil)
)

// Offload not available at submission (what package rados reports when
// its probe does not recognise librados' op): the copy falls back to the
// client and completes.
func TestSubmissionNotSupportedFallsBack(t *testing.T) {
	f := newFixture(t, small, 6*obj, faults.Rule{Kind: faults.SubmitCopy, Errno: syscall.EOPNOTSUPP})
	res, err := f.engine.Copy(context.Background(), f.source, 0, f.raw(0), 0, 6*obj, radoscp.Options{Window: 4})
	if err != nil || !res.Fallback || res.Objects != 0 || f.engine.Offload("a", "b") {
		t.Fatalf("got %+v, %v; want a fallback copy and offload off for a -> b", res, err)
	}
	assertEqual(t, "copy", f.read(t, 0, 6*obj), f.data)
}
