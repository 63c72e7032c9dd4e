package rados_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/rados/objtest"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// connect opens an admin connection to the test cluster.
func connect(t testing.TB, cfg rados.ConnConfig) *rados.Conn {
	t.Helper()
	if cfg.ConfPath == "" {
		cfg.ConfPath = test.Conf(t)
	}
	c, err := rados.Connect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func openPool(t testing.TB, c *rados.Conn, pool, ns string) *rados.Pool {
	t.Helper()
	p, err := c.OpenPool(pool, ns)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func randomBytes(t testing.TB, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func readAll(t testing.TB, p *rados.Pool, oid string) []byte {
	t.Helper()
	st, err := p.Stat(oid)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, st.Size)
	var off uint64
	for off < st.Size {
		n, err := p.Read(oid, buf[off:], off)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatalf("short read of %s at %d of %d", oid, off, st.Size)
		}
		off += uint64(n)
	}
	return buf
}

func copyAndWait(t testing.TB, dst *rados.Pool, dstOid string, src *rados.Pool, srcOid string, o store.CopyOptions) error {
	t.Helper()
	cp, err := dst.CopyFrom(dstOid, src, srcOid, o)
	if err != nil {
		return err
	}
	return cp.Wait()
}

func TestCopyFromIsByteExact(t *testing.T) {
	c := connect(t, rados.ConnConfig{})
	a := openPool(t, c, "radoscp-a", "")
	b := openPool(t, c, "radoscp-b", "")
	nsA := openPool(t, c, "radoscp-a", "other-ns")
	name := test.UniqueName(t)

	cases := []struct {
		what     string
		dst      *rados.Pool
		size     int
		xattrVal string
	}{
		{"same pool", a, 1 << 20, "v1"},
		{"cross pool", b, 3<<20 + 17, "v2"},
		{"cross namespace", nsA, 4096, "v3"},
		// Larger than osd_copyfrom_max_chunk (8 MiB): the OSD copies it in
		// chunks through a temp object.
		{"larger than one copy chunk", b, 20<<20 + 5, "v4"},
	}
	for i, tc := range cases {
		t.Run(tc.what, func(t *testing.T) {
			src := fmt.Sprintf("%s.src%d", name, i)
			dst := fmt.Sprintf("%s.dst%d", name, i)
			data := randomBytes(t, tc.size)
			if err := a.WriteFull(src, data); err != nil {
				t.Fatal(err)
			}
			if err := a.SetXattr(src, "user.k", []byte(tc.xattrVal)); err != nil {
				t.Fatal(err)
			}
			cp, err := tc.dst.CopyFrom(dst, a, src, store.CopyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := cp.Wait(); err != nil {
				t.Fatal(err)
			}
			if cp.Latency() <= 0 {
				t.Errorf("latency %v, want > 0", cp.Latency())
			}
			if got := readAll(t, tc.dst, dst); !bytes.Equal(got, data) {
				t.Fatalf("copy differs from source (%d vs %d bytes)", len(got), len(data))
			}
			if v, err := tc.dst.Xattr(dst, "user.k"); err != nil || string(v) != tc.xattrVal {
				t.Fatalf("xattr = %q, %v; copy-from copies xattrs", v, err)
			}
		})
	}
}

func TestCopyFromMissingSource(t *testing.T) {
	c := connect(t, rados.ConnConfig{})
	a := openPool(t, c, "radoscp-a", "")
	name := test.UniqueName(t)
	err := copyAndWait(t, a, name+".dst", a, name+".missing", store.CopyOptions{})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("got %v, want ENOENT", err)
	}
	if !strings.Contains(err.Error(), name+".missing") || !strings.Contains(err.Error(), name+".dst") {
		t.Fatalf("error %q does not name both objects", err)
	}
	if _, err := a.Stat(name + ".dst"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("failed copy left a destination: %v", err)
	}
}

func TestCopyFromForbiddenDestination(t *testing.T) {
	admin := connect(t, rados.ConnConfig{})
	a := openPool(t, admin, "radoscp-a", "")
	name := test.UniqueName(t)
	if err := a.WriteFull(name+".src", []byte("payload")); err != nil {
		t.Fatal(err)
	}
	id := "cp-" + name
	keyring := test.Client(t, id, "mon", "allow r",
		"osd", "allow r pool=radoscp-a, allow rw pool=radoscp-b object_prefix "+name+".ok")
	c := connect(t, rados.ConnConfig{ID: id, Keyring: keyring})
	src := openPool(t, c, "radoscp-a", "")
	dst := openPool(t, c, "radoscp-b", "")

	if err := copyAndWait(t, dst, name+".ok", src, name+".src", store.CopyOptions{}); err != nil {
		t.Fatalf("copy inside the granted prefix: %v", err)
	}
	err := copyAndWait(t, dst, name+".denied", src, name+".src", store.CopyOptions{})
	if !errors.Is(err, store.ErrPermission) {
		t.Fatalf("got %v, want EPERM", err)
	}
}

// The generation must reach the OSD: with (5, 2) stored on the object, a
// plain librados write (seq 0) that ends past the object's size is clipped;
// with (0, 0) it lands. librados' own copy_from2 would store the source's
// seq (0) in both cases, and both writes would land.
func TestCopyFromCarriesGeneration(t *testing.T) {
	c := connect(t, rados.ConnConfig{})
	a := openPool(t, c, "radoscp-a", "")
	name := test.UniqueName(t)
	data := randomBytes(t, 4096)
	if err := a.WriteFull(name+".src", data); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		gen     store.Generation
		clipped bool
	}{
		{store.Generation{Seq: 5, Size: 2}, true},
		{store.Generation{Seq: 0, Size: 0}, false},
	} {
		t.Run(fmt.Sprintf("seq%d_size%d", tc.gen.Seq, tc.gen.Size), func(t *testing.T) {
			dst := fmt.Sprintf("%s.dst-%d", name, tc.gen.Seq)
			if err := copyAndWait(t, a, dst, a, name+".src", store.CopyOptions{Generation: tc.gen}); err != nil {
				t.Fatal(err)
			}
			if err := a.Write(dst, []byte("tail"), 4096); err != nil {
				t.Fatal(err)
			}
			st, err := a.Stat(dst)
			if err != nil {
				t.Fatal(err)
			}
			if tc.clipped && st.Size != 4096 {
				t.Fatalf("size %d after a write past EOF: the generation did not reach the OSD", st.Size)
			}
			if !tc.clipped {
				if st.Size != 4100 {
					t.Fatalf("size %d, want 4100: the write should have landed", st.Size)
				}
				if got := readAll(t, a, dst); !bytes.Equal(got[:4096], data) || string(got[4096:]) != "tail" {
					t.Fatal("content after the landed write is wrong")
				}
			}
		})
	}
}

func TestCopyFromPinnedVersion(t *testing.T) {
	c := connect(t, rados.ConnConfig{})
	a := openPool(t, c, "radoscp-a", "")
	name := test.UniqueName(t)
	if err := a.WriteFull(name+".src", []byte("one")); err != nil {
		t.Fatal(err)
	}
	st, err := a.Stat(name + ".src")
	if err != nil {
		t.Fatal(err)
	}
	if st.Version == 0 || st.Size != 3 {
		t.Fatalf("stat = %+v, want a version and size 3", st)
	}
	if err := copyAndWait(t, a, name+".dst", a, name+".src", store.CopyOptions{SrcVersion: st.Version}); err != nil {
		t.Fatalf("copy pinned to the current version: %v", err)
	}
	if err := a.WriteFull(name+".src", []byte("two")); err != nil {
		t.Fatal(err)
	}
	err = copyAndWait(t, a, name+".dst2", a, name+".src", store.CopyOptions{SrcVersion: st.Version})
	if !errors.Is(err, store.ErrRange) {
		t.Fatalf("copy pinned to an old version: got %v, want ERANGE", err)
	}
}

func TestManyCopiesInFlight(t *testing.T) {
	c := connect(t, rados.ConnConfig{})
	a := openPool(t, c, "radoscp-a", "")
	b := openPool(t, c, "radoscp-b", "")
	name := test.UniqueName(t)
	const n = 64
	t.Cleanup(func() {
		for i := range n {
			a.Remove(fmt.Sprintf("%s.%08x", name, i))
			b.Remove(fmt.Sprintf("%s.%08x", name, i))
		}
	})
	srcs := make([][]byte, n)
	for i := range n {
		srcs[i] = randomBytes(t, 64<<10+i)
		if err := a.WriteFull(fmt.Sprintf("%s.%08x", name, i), srcs[i]); err != nil {
			t.Fatal(err)
		}
	}
	copies := make([]*rados.Copy, n)
	for i := range n {
		oid := fmt.Sprintf("%s.%08x", name, i)
		cp, err := b.CopyFrom(oid, a, oid, store.CopyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		copies[i] = cp
	}
	for i, cp := range copies {
		if err := cp.Wait(); err != nil {
			t.Fatalf("copy %d: %v", i, err)
		}
	}
	for i := range n {
		if got := readAll(t, b, fmt.Sprintf("%s.%08x", name, i)); !bytes.Equal(got, srcs[i]) {
			t.Fatalf("object %d differs", i)
		}
	}
	if copies, _ := rados.PendingCallbacks(); copies != 0 {
		t.Errorf("%d copies left registered after every copy completed", copies)
	}
}

// Closing a connection with copies nobody waited for must wait for them,
// not crash or leak; they all land.
func TestCloseWaitsForCopiesInFlight(t *testing.T) {
	c, err := rados.Connect(rados.ConnConfig{ConfPath: test.Conf(t)})
	if err != nil {
		t.Fatal(err)
	}
	a := openPool(t, c, "radoscp-a", "")
	name := test.UniqueName(t)
	data := randomBytes(t, 1<<20)
	if err := a.WriteFull(name+".src", data); err != nil {
		t.Fatal(err)
	}
	for i := range 32 {
		if _, err := a.CopyFrom(fmt.Sprintf("%s.dst%d", name, i), a, name+".src", store.CopyOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	if _, err := a.CopyFrom(name+".late", a, name+".src", store.CopyOptions{}); err == nil {
		t.Fatal("copy after Close was accepted")
	}

	check := connect(t, rados.ConnConfig{})
	p := openPool(t, check, "radoscp-a", "")
	t.Cleanup(func() {
		p.Remove(name + ".src")
		for i := range 32 {
			p.Remove(fmt.Sprintf("%s.dst%d", name, i))
		}
	})
	for i := range 32 {
		if got := readAll(t, p, fmt.Sprintf("%s.dst%d", name, i)); !bytes.Equal(got, data) {
			t.Fatalf("copy %d did not land whole", i)
		}
	}
}

func TestOpenMissingPool(t *testing.T) {
	c := connect(t, rados.ConnConfig{})
	_, err := c.OpenPool("no-such-pool", "")
	if !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "no-such-pool") {
		t.Fatalf("got %v, want ENOENT naming the pool", err)
	}
}

func TestConformance(t *testing.T) {
	c := connect(t, rados.ConnConfig{})
	objtest.Run(t, openPool(t, c, "radoscp-a", ""), openPool(t, c, "radoscp-b", ""), test.UniqueName(t))
}

// The same rules hold when the pool written to is erasure-coded (k=2,
// m=1, overwrites allowed): copies from a replicated pool into it, and
// every write, zero, xattr and lock call on it.
func TestConformanceErasureCoded(t *testing.T) {
	c := connect(t, rados.ConnConfig{})
	objtest.Run(t, openPool(t, c, "radoscp-a", ""), openPool(t, c, "radoscp-ec", ""), test.UniqueName(t))
	objtest.Run(t, openPool(t, c, "radoscp-ec", ""), openPool(t, c, "radoscp-a", ""), test.UniqueName(t)+"-back")
}
