package radoscp_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados"
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
