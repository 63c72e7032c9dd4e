package radoscp_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/rados/faults"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
	"github.com/radoscp/radoscp/truncate"
)

const mib = 1 << 20

// mb1 is a 1 MiB object layout: small enough to keep the real-cluster
// tests quick, large enough to be real copy-froms.
var mb1 = layout.Layout{StripeUnit: mib, StripeCount: 1, ObjectSize: mib}

// real is a source file and a destination prefix on the test cluster.
type real struct {
	conn       *rados.Conn
	a, b       *rados.Pool
	srcName    string
	dstName    string
	data       []byte
	source     radoscp.Source
	engine     *radoscp.Engine
	dstObjects store.Objects // what the engine writes through
	l          layout.Layout
}

func connectAdmin(t testing.TB) *rados.Conn {
	t.Helper()
	c, err := rados.Connect(rados.ConnConfig{ConfPath: test.Conf(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func newReal(t *testing.T, l layout.Layout, size int) *real {
	t.Helper()
	c := connectAdmin(t)
	r := &real{conn: c, l: l}
	var err error
	if r.a, err = c.OpenPool("radoscp-a", ""); err != nil {
		t.Fatal(err)
	}
	if r.b, err = c.OpenPool("radoscp-b", ""); err != nil {
		t.Fatal(err)
	}
	name := test.UniqueName(t)
	r.srcName, r.dstName = name+"-src", name+"-dst"
	r.data = randomData(uint64(size), size)
	writeFile(t, r.a, l, layout.Prefix(r.srcName), 0, r.data)
	// Memstore OSDs hold a run's objects in memory: leave none behind,
	// or a few runs on one cluster fill it (ENOSPC as EIO). Destinations
	// may sit at an offset, so twice the source's objects and some.
	t.Cleanup(func() {
		n := l.ObjectsFor(uint64(size))
		for i := range n {
			r.a.Remove(layout.Prefix(r.srcName).ObjectName(i))
		}
		for i := range 2*n + 2*l.StripeCount + 16 {
			r.b.Remove(layout.Prefix(r.dstName).ObjectName(i))
		}
	})
	r.source = radoscp.Source{Objects: r.a, Layout: l, Names: layout.Prefix(r.srcName), Size: uint64(size)}
	r.engine = radoscp.NewEngine(nil, nil)
	r.dstObjects = r.b
	return r
}

func (r *real) raw(eof uint64) *truncate.Raw {
	return truncate.NewRaw(r.dstObjects, r.l, r.dstName, eof)
}

func (r *real) read(t testing.TB, off, n uint64) []byte {
	return readFile(t, r.b, r.l, layout.Prefix(r.dstName), off, n)
}

// existing lists destination objects in [from, to) that exist, read with
// the admin connection.
func (r *real) existing(t testing.TB, from, to uint64) []uint64 {
	var found []uint64
	for i := from; i < to; i++ {
		_, err := r.b.Stat(layout.Prefix(r.dstName).ObjectName(i))
		if err == nil {
			found = append(found, i)
		} else if !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
	}
	return found
}

// restricted connects as a client that may read the source pool and write
// every destination object except those numbered in deny.
func (r *real) restricted(t *testing.T, objects uint64, deny ...uint64) *rados.Conn {
	t.Helper()
	grants := []string{"allow r pool=radoscp-a"}
	for i := range objects {
		if !contains(deny, i) {
			grants = append(grants, "allow rw pool=radoscp-b object_prefix "+layout.Prefix(r.dstName).ObjectName(i))
		}
	}
	id := "eng-" + strings.ReplaceAll(test.UniqueName(t), ".", "-")
	keyring := test.Client(t, id, "mon", "allow r", "osd", strings.Join(grants, ", "))
	c, err := rados.Connect(rados.ConnConfig{ConfPath: test.Conf(t), ID: id, Keyring: keyring})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func contains(s []uint64, v uint64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func (r *real) useConn(t *testing.T, c *rados.Conn) {
	t.Helper()
	a, err := c.OpenPool("radoscp-a", "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.OpenPool("radoscp-b", "")
	if err != nil {
		t.Fatal(err)
	}
	r.source.Objects, r.dstObjects = a, b
}

// assertNothingCopied checks a copy into an empty destination that failed
// with want before any byte was copied: the EOF stays 0 and none of the
// first n destination objects exists.
func (r *real) assertNothingCopied(t *testing.T, res radoscp.Result, err, want error, n uint64) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("got %v, want %v", err, want)
	}
	if res.Bytes != 0 || res.PublishedEOF != 0 {
		t.Fatalf("result %+v", res)
	}
	if left := r.existing(t, 0, n); len(left) != 0 {
		t.Fatalf("objects %v left behind", left)
	}
}

func TestRealWindowSweep(t *testing.T) {
	for _, w := range []int{1, 2, 4, 8, 16, 32, 64} {
		t.Run(strconv.Itoa(w), func(t *testing.T) {
			r := newReal(t, mb1, 24*mib)
			res, err := r.engine.Copy(context.Background(), r.source, 0, r.raw(0), 0, 24*mib, radoscp.Options{Window: w})
			if err != nil {
				t.Fatal(err)
			}
			if res.Bytes != 24*mib || res.Objects != 24 || res.Window != w || res.Fallback {
				t.Fatalf("result %+v", res)
			}
			assertEqual(t, "copy", r.read(t, 0, 24*mib), r.data)
		})
	}
}

func TestRealWindowZeroClampsToOne(t *testing.T) {
	r := newReal(t, mb1, 3*mib)
	res, err := r.engine.Copy(context.Background(), r.source, 0, r.raw(0), 0, 3*mib, radoscp.Options{Window: 0})
	if err != nil || res.Window != 1 {
		t.Fatalf("%+v, %v", res, err)
	}
	assertEqual(t, "copy", r.read(t, 0, 3*mib), r.data)
}

// The kernel patch's 66 MiB copy, trailing partial object included, with
// the default 4 MiB layout.
func TestReal66MiBWithTrailingPartialObject(t *testing.T) {
	l := layout.Layout{StripeUnit: 4 * mib, StripeCount: 1, ObjectSize: 4 * mib}
	r := newReal(t, l, 66*mib)
	res, err := r.engine.Copy(context.Background(), r.source, 0, r.raw(0), 0, 66*mib, radoscp.Options{Window: 16})
	if err != nil {
		t.Fatal(err)
	}
	if res.Bytes != 66*mib || res.Objects != 16 || !res.Fallback {
		t.Fatalf("result %+v", res)
	}
	assertEqual(t, "copy", r.read(t, 0, 66*mib), r.data)
}

func TestRealUnalignedOffsets(t *testing.T) {
	r := newReal(t, mb1, 8*mib)
	res, err := r.engine.Copy(context.Background(), r.source, 12345, r.raw(0), 12345, 5*mib+777, radoscp.Options{Window: 8})
	if err != nil || res.Bytes != 5*mib+777 || res.Objects != 4 {
		t.Fatalf("%+v, %v", res, err)
	}
	assertEqual(t, "copy", r.read(t, 12345, 5*mib+777), r.data[12345:12345+5*mib+777])
	assertEqual(t, "hole before", r.read(t, 0, 12345), make([]byte, 12345))
}

func TestRealFirstObjectFailureKeepsEOF(t *testing.T) {
	r := newReal(t, mb1, 8*mib)
	r.useConn(t, r.restricted(t, 8, 0))
	res, err := r.engine.Copy(context.Background(), r.source, 0, r.raw(0), 0, 8*mib, radoscp.Options{Window: 8})
	r.assertNothingCopied(t, res, err, store.ErrPermission, 8)
}

// Object 5 is denied, objects after it are allowed and really written in
// parallel; only the prefix stays, the rest is cut back.
func TestRealMidCopyFailurePublishesOnlyThePrefix(t *testing.T) {
	r := newReal(t, mb1, 16*mib)
	r.useConn(t, r.restricted(t, 16, 5))
	res, err := r.engine.Copy(context.Background(), r.source, 0, r.raw(0), 0, 16*mib, radoscp.Options{Window: 16})
	if !errors.Is(err, store.ErrPermission) || !strings.Contains(err.Error(), layout.Prefix(r.dstName).ObjectName(5)) {
		t.Fatalf("got %v, want EPERM naming object 5", err)
	}
	if res.Bytes != 5*mib || res.PublishedEOF != 5*mib || !res.CutBack {
		t.Fatalf("result %+v", res)
	}
	assertEqual(t, "prefix", r.read(t, 0, 5*mib), r.data[:5*mib])
	if left := r.existing(t, 5, 16); len(left) != 0 {
		t.Fatalf("objects %v past the published EOF are readable", left)
	}
}

// With osd_debug_inject_copyfrom_error every copy-from fails with EIO on
// the OSD: the copy fails, the EOF stays, nothing is left behind.
func TestRealEveryCopyFromFails(t *testing.T) {
	r := newReal(t, mb1, 6*mib)
	test.InjectCopyFromError(t, true)
	res, err := r.engine.Copy(context.Background(), r.source, 0, r.raw(0), 0, 6*mib, radoscp.Options{Window: 4})
	r.assertNothingCopied(t, res, err, store.ErrIO, 6)
}

// A total failure at an offset past EOF keeps the old EOF, the data below
// it, and the hole.
func TestRealTotalFailurePastEOF(t *testing.T) {
	r := newReal(t, mb1, 4*mib)
	old := randomData(5, 2*mib)
	writeFile(t, r.b, mb1, layout.Prefix(r.dstName), 0, old)
	test.InjectCopyFromError(t, true)
	res, err := r.engine.Copy(context.Background(), r.source, 0, r.raw(2*mib), 5*mib, 3*mib, radoscp.Options{Window: 4})
	if !errors.Is(err, store.ErrIO) || res.Bytes != 0 || res.PublishedEOF != 2*mib {
		t.Fatalf("%+v, %v", res, err)
	}
	assertEqual(t, "old data", r.read(t, 0, 2*mib), old)
	if left := r.existing(t, 2, 8); len(left) != 0 {
		t.Fatalf("objects %v past EOF", left)
	}
}

// A real I/O error (EPERM from the OSD) on an earlier object is reported,
// not the submission failure of a later one (injected on the real
// connection).
func TestRealIOErrorBeatsSubmissionFailure(t *testing.T) {
	r := newReal(t, mb1, 10*mib)
	r.useConn(t, r.restricted(t, 10, 2))
	r.dstObjects = faults.New(1, faults.Rule{Kind: faults.SubmitCopy, Object: layout.Prefix(r.dstName).ObjectName(6), Errno: syscall.ENOMEM}).Wrap(r.dstObjects)
	res, err := r.engine.Copy(context.Background(), r.source, 0, r.raw(0), 0, 10*mib, radoscp.Options{Window: 8})
	if !errors.Is(err, store.ErrPermission) || errors.Is(err, syscall.ENOMEM) {
		t.Fatalf("got %v, want the EPERM of object 2", err)
	}
	if res.Bytes != 2*mib {
		t.Fatalf("result %+v", res)
	}
	if left := r.existing(t, 2, 10); len(left) != 0 {
		t.Fatalf("objects %v past the prefix", left)
	}
}

func TestRealMiddleOfFile(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprintf("fail=%v", fail), func(t *testing.T) {
			r := newReal(t, mb1, 4*mib)
			old := randomData(11, 10*mib)
			writeFile(t, r.b, mb1, layout.Prefix(r.dstName), 0, old)
			var deny []uint64
			if fail {
				deny = []uint64{4}
			}
			r.useConn(t, r.restricted(t, 10, deny...))
			res, err := r.engine.Copy(context.Background(), r.source, 0, r.raw(10*mib), 2*mib, 4*mib, radoscp.Options{Window: 16})
			if !res.Serial || res.Window != 1 {
				t.Fatalf("result %+v: want serial", res)
			}
			copied := uint64(4 * mib)
			if fail {
				copied = 2 * mib
				if !errors.Is(err, store.ErrPermission) {
					t.Fatalf("got %v", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			want := append([]byte{}, old...)
			copy(want[2*mib:], r.data[:copied])
			if res.Bytes != copied || res.PublishedEOF != 10*mib {
				t.Fatalf("result %+v", res)
			}
			assertEqual(t, "file", r.read(t, 0, 10*mib), want)
		})
	}
}

// EOPNOTSUPP from the OSDs (injected on the real connection) turns offload
// off for the engine's life; the copy completes through the client.
func TestRealFallbackOnEOPNOTSUPP(t *testing.T) {
	r := newReal(t, mb1, 6*mib)
	obs := &recorder{}
	r.engine = radoscp.NewEngine(obs, nil)
	r.dstObjects = faults.New(1, faults.Rule{Kind: faults.Copy, Nth: 2, Errno: syscall.EOPNOTSUPP}).Wrap(r.dstObjects)
	res, err := r.engine.Copy(context.Background(), r.source, 0, r.raw(0), 0, 6*mib, radoscp.Options{Window: 4})
	if err != nil || !res.Fallback || r.engine.Offload() {
		t.Fatalf("%+v, %v, offload %v", res, err, r.engine.Offload())
	}
	assertEqual(t, "copy", r.read(t, 0, 6*mib), r.data)
	r.dstName += "-again"
	res, err = r.engine.Copy(context.Background(), r.source, 0, r.raw(0), 0, 6*mib, radoscp.Options{Window: 4})
	if err != nil || res.Objects != 0 || obs.fallbacks != 1 {
		t.Fatalf("second copy %+v, %v, fallbacks %d", res, err, obs.fallbacks)
	}
	assertEqual(t, "second copy", r.read(t, 0, 6*mib), r.data)
}

// A striped destination interoperates with `rados --striper`: its size is
// published in striper.size, object 0 keeps its own metadata and never
// gets the source's lock.
func TestRealStriperRoundTrip(t *testing.T) {
	conf := test.Conf(t)
	r := newReal(t, mb1, 1)
	name := test.UniqueName(t)
	data := randomData(3, 9*mib+4321)
	tmp := t.TempDir() + "/in"
	writeTemp(t, tmp, data)
	radosCLI(t, conf, "-p", "radoscp-a", "--striper", "put", name+"-src", tmp)

	meta, err := truncate.ReadStriperMeta(r.a, name+"-src")
	if err != nil || meta.Size != uint64(len(data)) {
		t.Fatalf("source meta %+v, %v", meta, err)
	}
	src := radoscp.Source{Objects: r.a, Layout: meta.Layout, Names: layout.Striper(name + "-src"), Size: meta.Size}
	dst, err := truncate.OpenStriper(r.b, name+"-dst", meta.Layout)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.engine.Copy(context.Background(), src, 0, dst, 0, meta.Size, radoscp.Options{Window: 8})
	if cerr := dst.Close(); cerr != nil {
		t.Fatal(cerr)
	}
	if err != nil || res.Bytes != meta.Size {
		t.Fatalf("%+v, %v", res, err)
	}
	out := t.TempDir() + "/out"
	radosCLI(t, conf, "-p", "radoscp-b", "--striper", "get", name+"-dst", out)
	assertEqual(t, "rados --striper get", readTemp(t, out), data)
	stat := radosCLI(t, conf, "-p", "radoscp-b", "--striper", "stat", name+"-dst")
	if !strings.Contains(stat, "size "+strconv.Itoa(len(data))) {
		t.Fatalf("rados --striper stat: %s", stat)
	}
	dmeta, err := truncate.ReadStriperMeta(r.b, name+"-dst")
	if err != nil || dmeta != meta {
		t.Fatalf("destination meta %+v, %v; want %+v", dmeta, err, meta)
	}
	// rm takes libradosstriper's exclusive lock: it fails if radoscp left
	// its shared lock, or a copy of the source's, behind.
	radosCLI(t, conf, "-p", "radoscp-b", "--striper", "rm", name+"-dst")
}

func radosCLI(t testing.TB, conf string, args ...string) string {
	t.Helper()
	out, err := test.RadosCLI(conf, args...)
	if err != nil {
		t.Fatalf("rados %v: %v\n%s", args, err, out)
	}
	return string(out)
}
