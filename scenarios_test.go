package radoscp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados/faults"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
	"github.com/radoscp/radoscp/truncate"
)

// The engine's scenarios, written once and run on the in-memory fake and
// on the real cluster. Each backend gives an env: a source file, a
// destination prefix, the engine, and two ways to fail copies that are
// real where they can be (cephx caps and the OSD's injected copy-from
// error on the cluster, the fault decorator on the fake).

// env is one scenario's source and destination on a backend.
type env struct {
	l      layout.Layout
	obj    uint64 // l.ObjectSize, the unit scenarios count in
	data   []byte
	source radoscp.Source
	engine *radoscp.Engine
	obs    *recorder
	dst    *counting // what the engine writes through
	// plain is the destination pool through a handle the engine does not
	// write through, for reading back; cleanup removes a destination's
	// objects when the test ends (the cluster's memstore OSDs are small).
	plain   store.Objects
	cleanup func(t *testing.T, name string)
	// deny makes copy-froms into the given destination objects fail with
	// EPERM (of objects numbered below n); failAll makes every
	// copy-from fail with EIO.
	deny    func(t *testing.T, n uint64, objs ...uint64)
	failAll func(t *testing.T)
	// wrap decorates the destination with injected faults.
	wrap func(rules ...faults.Rule)
	// dstName is the destination prefix.
	dstName string
}

// newDst moves the env to a fresh destination prefix, same source.
func (e *env) newDst(t *testing.T, suffix string) {
	e.dstName = strings.SplitN(e.dstName, "--", 2)[0] + "--" + suffix
	e.cleanup(t, e.dstName)
}

func (e *env) read(t testing.TB, off, n uint64) []byte {
	return readFile(t, e.plain, e.l, layout.Prefix(e.dstName), off, n)
}

// existing lists the destination objects in [from, to) that exist.
func (e *env) existing(t testing.TB, from, to uint64) []uint64 {
	var found []uint64
	for i := from; i < to; i++ {
		_, err := e.plain.Stat(e.oid(i))
		if err == nil {
			found = append(found, i)
		} else if !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
	}
	return found
}

// writeOld puts data at the start of the destination, as a file that was
// there before the copy.
func (e *env) writeOld(t testing.TB, data []byte) {
	writeFile(t, e.plain, e.l, layout.Prefix(e.dstName), 0, data)
}

func (e *env) raw(eof uint64) *truncate.Raw {
	return truncate.NewRaw(e.dst, e.l, e.dstName, eof)
}

func (e *env) oid(obj uint64) string { return layout.Prefix(e.dstName).ObjectName(obj) }

// backend makes envs with objects of l, big ones with bigger objects.
type backend struct {
	name string
	// exact says that the window's width is reached exactly (the fake
	// delays every copy-from, so a full window is always in flight).
	exact  bool
	l, big layout.Layout
	newEnv func(t *testing.T, l layout.Layout, size uint64) *env
}

var backends = []backend{
	{name: "fake", exact: true, l: small, big: small, newEnv: fakeEnv},
	{name: "real", l: mb1, big: layout.Layout{StripeUnit: 4 * mib, StripeCount: 1, ObjectSize: 4 * mib}, newEnv: realEnv},
}

func fakeEnv(t *testing.T, l layout.Layout, size uint64) *env {
	f := newFixture(t, l, int(size))
	f.store.Latency = func(string) time.Duration { return time.Millisecond }
	e := &env{l: l, obj: l.ObjectSize, data: f.data, source: f.source, engine: f.engine, obs: f.obs, dst: f.dst, dstName: "dst",
		plain: f.dstP, cleanup: func(*testing.T, string) {}}
	e.wrap = func(rules ...faults.Rule) { e.dst.Objects = faults.New(1, rules...).Wrap(e.dst.Objects) }
	e.deny = func(_ *testing.T, _ uint64, objs ...uint64) {
		var rules []faults.Rule
		for _, o := range objs {
			// Delayed, so the copies after it complete first and are
			// really written, as on the cluster.
			rules = append(rules, faults.Rule{Kind: faults.Copy, Object: e.oid(o), Errno: syscall.EPERM, Delay: 20 * time.Millisecond})
		}
		e.wrap(rules...)
	}
	e.failAll = func(*testing.T) { e.wrap(faults.Rule{Kind: faults.Copy, Errno: syscall.EIO}) }
	return e
}

func realEnv(t *testing.T, l layout.Layout, size uint64) *env {
	r := newReal(t, l, int(size))
	e := &env{l: l, obj: l.ObjectSize, data: r.data, source: r.source, obs: &recorder{}, dstName: r.dstName, plain: r.b}
	e.cleanup = func(t *testing.T, name string) {
		t.Cleanup(func() {
			for i := range 2*l.ObjectsFor(size) + 16 {
				r.b.Remove(layout.Prefix(name).ObjectName(i))
			}
		})
	}
	e.engine = radoscp.NewEngine(e.obs, nil)
	e.dst = &counting{Objects: r.dstObjects}
	e.wrap = func(rules ...faults.Rule) { e.dst.Objects = faults.New(1, rules...).Wrap(e.dst.Objects) }
	e.deny = func(t *testing.T, n uint64, objs ...uint64) {
		r.dstName = e.dstName // the caps name the current destination's objects
		r.useConn(t, r.restricted(t, n, objs...))
		e.source = r.source
		e.dst.Objects = r.dstObjects
	}
	e.failAll = func(t *testing.T) { test.InjectCopyFromError(t, true) }
	return e
}

// scenario is one behaviour of Engine.Copy.
type scenario struct {
	name string
	big  bool   // use the backend's big layout
	size uint64 // source size, in objects
	// partial adds half an object and 12345 bytes past the whole ones.
	partial bool
	run     func(t *testing.T, b backend, e *env)
}

var scenarios = []scenario{
	{name: "window sweep", size: 20, run: func(t *testing.T, b backend, e *env) {
		for _, w := range []int{1, 2, 4, 8, 16, 32, 64} {
			e.newDst(t, fmt.Sprint("w", w))
			e.dst.maxInFlight.Store(0)
			if b.exact {
				e.dst.holdUntil(min(w, 20))
			}
			res, err := e.engine.Copy(context.Background(), e.source, 0, e.raw(0), 0, 20*e.obj, radoscp.Options{Window: w})
			if err != nil {
				t.Fatalf("window %d: %v", w, err)
			}
			if res.Bytes != 20*e.obj || res.PublishedEOF != 20*e.obj || res.Objects != 20 || res.Window != w || res.Serial || res.Fallback {
				t.Fatalf("window %d: result %+v", w, res)
			}
			if got := e.dst.maxInFlight.Load(); got > int64(w) || (b.exact && w <= 20 && got != int64(w)) {
				t.Fatalf("max in flight %d with window %d", got, w)
			}
			assertEqual(t, fmt.Sprintf("copy at window %d", w), e.read(t, 0, 20*e.obj), e.data)
		}
	}},
	{name: "window 0 means 1", size: 4, run: func(t *testing.T, b backend, e *env) {
		res, err := e.engine.Copy(context.Background(), e.source, 0, e.raw(0), 0, 4*e.obj, radoscp.Options{Window: 0})
		if err != nil || res.Window != 1 || e.dst.maxInFlight.Load() != 1 {
			t.Fatalf("result %+v, err %v, max in flight %d", res, err, e.dst.maxInFlight.Load())
		}
		assertEqual(t, "copy", e.read(t, 0, 4*e.obj), e.data)
	}},
	// The kernel patch's 66 MiB case (4 MiB objects on the cluster):
	// whole objects plus a trailing partial one, which the client reads
	// and writes.
	{name: "trailing partial object", big: true, size: 16, partial: true, run: func(t *testing.T, b backend, e *env) {
		size := e.source.Size
		res, err := e.engine.Copy(context.Background(), e.source, 0, e.raw(0), 0, size, radoscp.Options{Window: 16})
		if err != nil {
			t.Fatal(err)
		}
		if res.Bytes != size || !res.Fallback || res.Objects != size/e.obj {
			t.Fatalf("result %+v", res)
		}
		assertEqual(t, "copy", e.read(t, 0, size), e.data)
	}},
	{name: "unaligned offsets", size: 8, run: func(t *testing.T, b backend, e *env) {
		o := e.obj
		for i, tc := range []struct{ srcOff, dstOff, length uint64 }{
			{1000, 1000, 5*o + 10},  // same misalignment: head, whole objects, tail
			{0, 1000, 5 * o},        // different misalignment: all through the client
			{o - 1, o - 1, 2},       // a range straddling two objects
			{3 * o, 0, 2*o + 100},   // aligned, different positions
			{12345, 12345, 5*o + 7}, // whole objects between two partial ones
		} {
			e.newDst(t, fmt.Sprint(i))
			res, err := e.engine.Copy(context.Background(), e.source, tc.srcOff, e.raw(0), tc.dstOff, tc.length, radoscp.Options{Window: 4})
			if err != nil {
				t.Fatalf("%+v: %v", tc, err)
			}
			if res.Bytes != tc.length || res.PublishedEOF != tc.dstOff+tc.length {
				t.Fatalf("%+v: result %+v", tc, res)
			}
			assertEqual(t, fmt.Sprintf("copy %+v", tc), e.read(t, tc.dstOff, tc.length), e.data[tc.srcOff:tc.srcOff+tc.length])
			assertEqual(t, fmt.Sprintf("hole before the copy %+v", tc), e.read(t, 0, tc.dstOff), make([]byte, tc.dstOff))
		}
	}},
	{name: "first object failure keeps the EOF", size: 8, run: func(t *testing.T, b backend, e *env) {
		e.deny(t, 8, 0)
		res, err := e.engine.Copy(context.Background(), e.source, 0, e.raw(0), 0, 8*e.obj, radoscp.Options{Window: 8})
		if !errors.Is(err, store.ErrPermission) || !strings.Contains(err.Error(), e.oid(0)) {
			t.Fatalf("got %v, want EPERM naming %s", err, e.oid(0))
		}
		if res.Bytes != 0 || res.PublishedEOF != 0 || !res.CutBack {
			t.Fatalf("result %+v: want nothing published and the speculative copies cut back", res)
		}
		if left := e.existing(t, 0, 8); len(left) != 0 {
			t.Fatalf("objects %v left past EOF 0", left)
		}
	}},
	// The copies after the failed one are really written, in parallel;
	// only the prefix stays, the rest is cut back.
	{name: "mid-copy failure publishes only the prefix", size: 16, run: func(t *testing.T, b backend, e *env) {
		e.deny(t, 16, 5)
		res, err := e.engine.Copy(context.Background(), e.source, 0, e.raw(0), 0, 16*e.obj, radoscp.Options{Window: 16})
		if !errors.Is(err, store.ErrPermission) || !strings.Contains(err.Error(), e.oid(5)) {
			t.Fatalf("got %v, want EPERM naming %s", err, e.oid(5))
		}
		if res.Bytes != 5*e.obj || res.PublishedEOF != 5*e.obj || !res.CutBack {
			t.Fatalf("result %+v", res)
		}
		assertEqual(t, "prefix", e.read(t, 0, 5*e.obj), e.data[:5*e.obj])
		if left := e.existing(t, 5, 16); len(left) != 0 {
			t.Fatalf("speculative objects %v survived the cut-back", left)
		}
		if e.obs.cutbacks != 1 || e.obs.progress != 5*e.obj {
			t.Fatalf("observer saw %d cut-backs, progress %d", e.obs.cutbacks, e.obs.progress)
		}
	}},
	{name: "every copy-from fails", size: 6, run: func(t *testing.T, b backend, e *env) {
		e.failAll(t)
		res, err := e.engine.Copy(context.Background(), e.source, 0, e.raw(0), 0, 6*e.obj, radoscp.Options{Window: 4})
		if !errors.Is(err, store.ErrIO) || res.Bytes != 0 || res.PublishedEOF != 0 {
			t.Fatalf("%+v, %v; want EIO and nothing copied", res, err)
		}
		if left := e.existing(t, 0, 6); len(left) != 0 {
			t.Fatalf("objects %v left behind", left)
		}
	}},
	// A total failure at an offset past EOF keeps the old EOF, the data
	// below it, and the hole.
	{name: "total failure past EOF keeps EOF and hole", size: 8, run: func(t *testing.T, b backend, e *env) {
		old := randomData(99, int(2*e.obj))
		e.writeOld(t, old)
		e.failAll(t)
		res, err := e.engine.Copy(context.Background(), e.source, 0, e.raw(2*e.obj), 5*e.obj, 3*e.obj, radoscp.Options{Window: 8})
		if !errors.Is(err, store.ErrIO) || res.Bytes != 0 || res.PublishedEOF != 2*e.obj {
			t.Fatalf("%+v, %v", res, err)
		}
		assertEqual(t, "data before EOF", e.read(t, 0, 2*e.obj), old)
		if left := e.existing(t, 2, 8); len(left) != 0 {
			t.Fatalf("objects %v past EOF", left)
		}
	}},
	// A real I/O error of an earlier object outranks a later submission
	// failure (injected at submission on both backends).
	{name: "an I/O error beats a later submission failure", size: 10, run: func(t *testing.T, b backend, e *env) {
		e.deny(t, 10, 2)
		e.wrap(faults.Rule{Kind: faults.SubmitCopy, Object: e.oid(6), Errno: syscall.ENOMEM})
		res, err := e.engine.Copy(context.Background(), e.source, 0, e.raw(0), 0, 10*e.obj, radoscp.Options{Window: 8})
		if !errors.Is(err, store.ErrPermission) || errors.Is(err, syscall.ENOMEM) {
			t.Fatalf("got %v, want the EPERM of object 2", err)
		}
		if res.Bytes != 2*e.obj {
			t.Fatalf("result %+v", res)
		}
		if left := e.existing(t, 2, 10); len(left) != 0 {
			t.Fatalf("objects %v past the prefix survived", left)
		}
	}},
	// Copies into existing data run one at a time; success and failure
	// leave everything outside the copied prefix intact.
	{name: "middle of file is serial", size: 4, run: func(t *testing.T, b backend, e *env) {
		for _, fail := range []bool{false, true} {
			old := randomData(7, int(10*e.obj))
			if fail {
				e.newDst(t, "fail")
				e.deny(t, 10, 4)
			}
			e.dst.maxInFlight.Store(0)
			e.dst.submits.Store(0)
			e.writeOld(t, old)
			res, err := e.engine.Copy(context.Background(), e.source, 0, e.raw(10*e.obj), 2*e.obj, 4*e.obj, radoscp.Options{Window: 16})
			if !res.Serial || res.Window != 1 || e.dst.maxInFlight.Load() != 1 {
				t.Fatalf("fail=%v: result %+v, max in flight %d: want serial", fail, res, e.dst.maxInFlight.Load())
			}
			want := append([]byte{}, old...)
			copied := 4 * e.obj
			if fail {
				copied = 2 * e.obj
				if !errors.Is(err, store.ErrPermission) {
					t.Fatalf("got %v", err)
				}
				if e.dst.submits.Load() != 3 {
					t.Fatalf("%d copies submitted; serial must stop at the failure", e.dst.submits.Load())
				}
			} else if err != nil {
				t.Fatal(err)
			}
			copy(want[2*e.obj:], e.data[:copied])
			if res.Bytes != copied || res.PublishedEOF != 10*e.obj || res.CutBack {
				t.Fatalf("fail=%v: result %+v", fail, res)
			}
			assertEqual(t, fmt.Sprintf("file (fail=%v)", fail), e.read(t, 0, 10*e.obj), want)
		}
	}},
	// One hole rule on every path: where the source has no object, the
	// destination reads as zeros afterwards, whatever it held before,
	// past the original EOF too (objects a killed run left, or past a
	// rados: --dst-size), and a hole over nothing creates no object. The
	// copy-from path (aligned) removes the destination object; the client
	// path (misaligned, small chunks, so some chunks lie wholly in the
	// hole) zeroes the destination's bytes.
	{name: "holes copy as zeros over stale data, on every path", size: 8, run: func(t *testing.T, b backend, e *env) {
		o := e.obj
		for _, i := range []uint64{2, 3} {
			if err := e.source.Objects.Remove(e.source.Names.ObjectName(i)); err != nil {
				t.Fatal(err)
			}
		}
		want := append([]byte{}, e.data...)
		clear(want[2*o : 4*o])
		stale := make([]byte, 10*o)
		for i := range stale {
			stale[i] = 0xee
		}
		for _, tc := range []struct {
			name   string
			dstOff uint64
			chunk  uint64
			stale  bool
		}{
			{"copy-from over stale objects", 0, 0, true},
			{"client over stale objects", 1000, o / 4, true},
			{"copy-from over nothing", 0, 0, false},
			{"client over nothing", 1000, o / 4, false},
		} {
			e.newDst(t, strings.ReplaceAll(tc.name, " ", "-"))
			if tc.stale {
				e.writeOld(t, stale)
			}
			res, err := e.engine.Copy(context.Background(), e.source, 0, e.raw(0), tc.dstOff, 8*o, radoscp.Options{Window: 4, Chunk: tc.chunk})
			if err != nil || res.Bytes != 8*o {
				t.Fatalf("%s: %+v, %v", tc.name, res, err)
			}
			if clientPath := tc.dstOff%o != 0; res.Fallback != clientPath {
				t.Fatalf("%s: result %+v: want the %s path", tc.name, res, map[bool]string{true: "client", false: "copy-from"}[clientPath])
			}
			assertEqual(t, tc.name, e.read(t, tc.dstOff, 8*o), want)
			// Destination objects wholly inside the hole: gone (copy-from
			// path) or absent (client path over nothing); the client path
			// over stale objects zeroes them instead.
			hole := []uint64{2, 3}
			if tc.dstOff != 0 {
				hole = []uint64{3} // [3o, 4o) holds source bytes [3o-1000, 4o-1000)
			}
			left := e.existing(t, hole[0], hole[len(hole)-1]+1)
			if (tc.dstOff == 0 || !tc.stale) && len(left) != 0 {
				t.Fatalf("%s: destination objects %v exist where the source has a hole", tc.name, left)
			}
		}
	}},
	// EOPNOTSUPP turns offload off for that pair of pools, for the life
	// of the engine: the copy goes on through the client, later copies
	// between the same pools send no copy-from, and the fallback is
	// counted once; a copy between other pools (here the source's pool
	// into itself) still goes by copy-from.
	{name: "no copy-from support falls back for that pair of pools", size: 12, run: func(t *testing.T, b backend, e *env) {
		e.wrap(faults.Rule{Kind: faults.Copy, Object: e.oid(3), Errno: syscall.EOPNOTSUPP})
		srcPool, dstPool := e.source.Objects.Locate("").Pool, e.dst.Locate("").Pool
		res, err := e.engine.Copy(context.Background(), e.source, 0, e.raw(0), 0, 12*e.obj, radoscp.Options{Window: 4})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Fallback || res.Bytes != 12*e.obj || e.engine.Offload(srcPool, dstPool) {
			t.Fatalf("result %+v, offload %v", res, e.engine.Offload(srcPool, dstPool))
		}
		assertEqual(t, "copy", e.read(t, 0, 12*e.obj), e.data)
		submitted := e.dst.submits.Load()
		e.newDst(t, "again")
		res, err = e.engine.Copy(context.Background(), e.source, 0, e.raw(0), 0, 12*e.obj, radoscp.Options{Window: 4})
		if err != nil || !res.Fallback || res.Objects != 0 {
			t.Fatalf("second copy: %+v, %v", res, err)
		}
		if e.dst.submits.Load() != submitted {
			t.Fatal("a copy-from was sent after offload was turned off")
		}
		assertEqual(t, "second copy", e.read(t, 0, 12*e.obj), e.data)

		// Another pair of pools: the source's pool into itself.
		other := layout.Prefix(e.dstName + "-other")
		t.Cleanup(func() {
			for i := range uint64(12) {
				e.source.Objects.Remove(other.ObjectName(i))
			}
		})
		if !e.engine.Offload(srcPool, srcPool) {
			t.Fatal("offload is off between the source's pool and itself")
		}
		res, err = e.engine.Copy(context.Background(), e.source, 0, truncate.NewRaw(e.source.Objects, e.l, e.dstName+"-other", 0), 0, 12*e.obj,
			radoscp.Options{Window: 4})
		if err != nil || res.Fallback || res.Objects != 12 {
			t.Fatalf("copy between other pools: %+v, %v; want all 12 objects by copy-from", res, err)
		}
		assertEqual(t, "copy between other pools", readFile(t, e.source.Objects, e.l, other, 0, 12*e.obj), e.data)
		if e.obs.fallbacks != 1 {
			t.Fatalf("fallback counted %d times", e.obs.fallbacks)
		}
	}},
}

// TestScenarios runs every scenario on every backend.
func TestScenarios(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			if b.name == "real" {
				test.Conf(t) // skips, or fails under RADOSCP_REQUIRE_CLUSTER, without a cluster
			}
			for _, s := range scenarios {
				t.Run(s.name, func(t *testing.T) {
					l := b.l
					if s.big {
						l = b.big
					}
					size := s.size * l.ObjectSize
					if s.partial {
						size += l.ObjectSize/2 + 12345
					}
					s.run(t, b, b.newEnv(t, l, size))
				})
			}
		})
	}
}
