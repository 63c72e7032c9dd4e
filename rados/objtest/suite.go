package objtest

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"syscall"
	"testing"

	"github.com/radoscp/radoscp/store"
)

// Run checks a and b, two pools of one cluster, against the rules the copy
// engine relies on. prefix keeps object names apart from other tests.
func Run(t *testing.T, a, b store.Objects, prefix string) {
	name := func(s string) string { return fmt.Sprintf("%s.%s", prefix, s) }
	read := func(t *testing.T, p store.Objects, oid string, n int, off uint64) []byte {
		t.Helper()
		buf := make([]byte, n)
		got, err := p.Read(oid, buf, off)
		if err != nil {
			t.Fatal(err)
		}
		return buf[:got]
	}

	t.Run("write read stat", func(t *testing.T) {
		oid := name("rw")
		if err := a.Write(oid, []byte("hello"), 3); err != nil {
			t.Fatal(err)
		}
		if got := read(t, a, oid, 100, 0); !bytes.Equal(got, []byte("\x00\x00\x00hello")) {
			t.Fatalf("read %q: a write past the end must zero-fill", got)
		}
		if got := read(t, a, oid, 100, 6); string(got) != "lo" {
			t.Fatalf("short read at 6 = %q", got)
		}
		if got := read(t, a, oid, 10, 50); len(got) != 0 {
			t.Fatalf("read past the end = %q, want nothing", got)
		}
		st, err := a.Stat(oid)
		if err != nil || st.Size != 8 {
			t.Fatalf("stat = %+v, %v; want size 8", st, err)
		}
	})
	t.Run("missing objects", func(t *testing.T) {
		oid := name("missing")
		if _, err := a.Stat(oid); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("stat: %v, want ENOENT", err)
		}
		if _, err := a.Read(oid, make([]byte, 4), 0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("read: %v, want ENOENT", err)
		}
		if err := a.Remove(oid); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("remove: %v, want ENOENT", err)
		}
	})
	t.Run("write_full truncate remove", func(t *testing.T) {
		oid := name("wf")
		if err := a.Write(oid, bytes.Repeat([]byte("x"), 100), 0); err != nil {
			t.Fatal(err)
		}
		if err := a.WriteFull(oid, []byte("short")); err != nil {
			t.Fatal(err)
		}
		if got := read(t, a, oid, 200, 0); string(got) != "short" {
			t.Fatalf("after write_full: %q", got)
		}
		if err := a.Truncate(oid, 2); err != nil {
			t.Fatal(err)
		}
		if got := read(t, a, oid, 200, 0); string(got) != "sh" {
			t.Fatalf("after truncate: %q", got)
		}
		if err := a.Remove(oid); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Stat(oid); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("stat after remove: %v", err)
		}
	})
	t.Run("zero", func(t *testing.T) {
		oid := name("zero")
		if err := a.WriteFull(oid, []byte("abcdefgh")); err != nil {
			t.Fatal(err)
		}
		// Inside the object, and running to or past its end: the OSD cuts
		// the object at the range's start then; it never grows it.
		if err := a.Zero(oid, 2, 3); err != nil {
			t.Fatal(err)
		}
		if err := a.Zero(oid, 6, 100); err != nil {
			t.Fatal(err)
		}
		if got := read(t, a, oid, 100, 0); string(got) != "ab\x00\x00\x00f" {
			t.Fatalf("after zeroing: %q", got)
		}
		if err := a.Zero(oid, 50, 10); err != nil {
			t.Fatal(err)
		}
		if st, err := a.Stat(oid); err != nil || st.Size != 6 {
			t.Fatalf("zeroing past the end: stat = %+v, %v; want the size unchanged (6)", st, err)
		}
		missing := name("zeromissing")
		if err := a.Zero(missing, 0, 10); err != nil {
			t.Fatalf("zeroing a missing object: %v", err)
		}
		if _, err := a.Stat(missing); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("zeroing a missing object created it: stat %v", err)
		}
	})
	t.Run("copy replaces the whole destination", func(t *testing.T) {
		src, dst := name("csrc"), name("cdst")
		if err := a.WriteFull(src, []byte("new")); err != nil {
			t.Fatal(err)
		}
		if err := b.WriteFull(dst, bytes.Repeat([]byte("o"), 50)); err != nil {
			t.Fatal(err)
		}
		st, err := a.Stat(src)
		if err != nil {
			t.Fatal(err)
		}
		p, err := b.Submit(dst, a.Locate(src), store.CopyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		if got := read(t, b, dst, 100, 0); string(got) != "new" {
			t.Fatalf("copy = %q, want exactly the source", got)
		}
		// An unpinned copy names the version it copied: the source's.
		if p.CopiedVersion() != st.Version {
			t.Fatalf("copy answered version %d, the source is at %d", p.CopiedVersion(), st.Version)
		}
	})
	t.Run("copy of a missing source", func(t *testing.T) {
		dst := name("cdst2")
		if err := b.WriteFull(dst, []byte("keep")); err != nil {
			t.Fatal(err)
		}
		p, err := b.Submit(dst, a.Locate(name("nosrc")), store.CopyOptions{})
		if err == nil {
			err = p.Wait()
		}
		if !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("got %v, want ENOENT", err)
		}
		if p != nil && p.CopiedVersion() != 0 {
			t.Fatalf("a failed copy answered version %d, want 0", p.CopiedVersion())
		}
		if got := read(t, b, dst, 100, 0); string(got) != "keep" {
			t.Fatalf("failed copy changed the destination: %q", got)
		}
	})
	t.Run("pinned copies", func(t *testing.T) {
		src, dst := name("psrc"), name("pdst")
		if err := a.WriteFull(src, []byte("one")); err != nil {
			t.Fatal(err)
		}
		st, err := a.Stat(src)
		if err != nil || st.Version == 0 {
			t.Fatalf("stat = %+v, %v; want a version", st, err)
		}
		copyPinned := func(version uint64) error {
			p, err := b.Submit(dst, a.Locate(src), store.CopyOptions{SrcVersion: version})
			if err != nil {
				return err
			}
			return p.Wait()
		}
		if err := copyPinned(st.Version); err != nil {
			t.Fatalf("copy pinned to the current version: %v", err)
		}
		if err := a.Write(src, []byte("two"), 0); err != nil {
			t.Fatal(err)
		}
		if now, _ := a.Stat(src); now.Version <= st.Version {
			t.Fatalf("version %d after a write, was %d", now.Version, st.Version)
		}
		if err := copyPinned(st.Version); !errors.Is(err, store.ErrRange) {
			t.Fatalf("copy pinned to an older version: %v, want ERANGE", err)
		}
		if got := read(t, b, dst, 100, 0); string(got) != "one" {
			t.Fatalf("refused copy changed the destination: %q", got)
		}
	})
	t.Run("pinned to a version the source has not reached", func(t *testing.T) {
		src, dst := name("osrc"), name("odst")
		if err := a.WriteFull(src, []byte("one")); err != nil {
			t.Fatal(err)
		}
		if err := b.WriteFull(dst, []byte("keep")); err != nil {
			t.Fatal(err)
		}
		st, err := a.Stat(src)
		if err != nil {
			t.Fatal(err)
		}
		// The source is older than the pin: EOVERFLOW, not ERANGE, so the
		// engine can name which way the source moved.
		p, err := b.Submit(dst, a.Locate(src), store.CopyOptions{SrcVersion: st.Version + 1000})
		if err == nil {
			err = p.Wait()
		}
		if !errors.Is(err, syscall.EOVERFLOW) {
			t.Fatalf("copy pinned to a newer version than the source's: %v, want EOVERFLOW", err)
		}
		if got := read(t, b, dst, 100, 0); string(got) != "keep" {
			t.Fatalf("refused copy changed the destination: %q", got)
		}
	})
	t.Run("copy replaces the destination's xattrs", func(t *testing.T) {
		src, dst := name("xsrc"), name("xdst")
		if err := a.WriteFull(src, []byte("data")); err != nil {
			t.Fatal(err)
		}
		if err := a.SetXattr(src, "theirs", []byte("s")); err != nil {
			t.Fatal(err)
		}
		if err := b.WriteFull(dst, []byte("old")); err != nil {
			t.Fatal(err)
		}
		if err := b.SetXattr(dst, "own", []byte("d")); err != nil {
			t.Fatal(err)
		}
		p, err := b.Submit(dst, a.Locate(src), store.CopyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		x, err := b.Xattrs(dst)
		if err != nil {
			t.Fatal(err)
		}
		if names := slices.Sorted(maps.Keys(x)); !slices.Equal(names, []string{"theirs"}) || string(x["theirs"]) != "s" {
			t.Fatalf("destination xattrs after copy-from: %q, want exactly the source's (theirs=s)", x)
		}
		if _, err := b.Xattr(dst, "own"); !errors.Is(err, syscall.ENODATA) {
			t.Fatalf("destination's own xattr after copy-from: %v, want ENODATA", err)
		}
	})
	// The engine's safety rests on the generation a copy-from stores: a
	// plain write (as a stale client's) that ends past the object's end is
	// clipped at it when the stored truncate_seq is newer (a write wholly
	// past the end still moves the size, with zeros, on Ceph 16.2: the
	// OSD writes 0 bytes at its offset; Ceph 18.2 leaves the size); with
	// (0, 0) stored, writes land as usual.
	t.Run("copy stores the generation", func(t *testing.T) {
		src := name("gsrc")
		if err := a.WriteFull(src, []byte("abcd")); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			gen  store.Generation
			want string
		}{
			{store.Generation{Seq: 5, Size: 2}, "abcX\x00\x00\x00\x00\x00\x00"},
			{store.Generation{}, "abcXYZ"},
		} {
			dst := name(fmt.Sprintf("gdst%d", tc.gen.Seq))
			p, err := b.Submit(dst, a.Locate(src), store.CopyOptions{Generation: tc.gen})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Wait(); err != nil {
				t.Fatal(err)
			}
			if err := b.Write(dst, []byte("XYZ"), 3); err != nil {
				t.Fatal(err)
			}
			if err := b.Write(dst, []byte("past"), 10); err != nil {
				t.Fatal(err)
			}
			if tc.gen.Seq == 0 {
				tc.want = "abcXYZ\x00\x00\x00\x00past"
			}
			got := read(t, b, dst, 100, 0)
			if tc.gen.Seq != 0 && string(got) == "abcX" {
				// Ceph 18.2 (Reef): the write wholly past the end
				// is clipped to nothing and leaves the size alone.
				// Either way no byte of a stale write lands.
				tc.want = "abcX"
			}
			if string(got) != tc.want {
				t.Fatalf("generation %+v: writes after the copy give %q, want %q", tc.gen, got, tc.want)
			}
		}
	})
	// Completion: Ready is closed only once the copy has landed, so what
	// the engine reads after it (without Wait) is the copy's result; Wait
	// then returns at once, and again with the same result; a failed copy
	// signals the same way.
	t.Run("completion signalling", func(t *testing.T) {
		const n = 16
		src := name("rsrc")
		data := bytes.Repeat([]byte("r"), 4096)
		if err := a.WriteFull(src, data); err != nil {
			t.Fatal(err)
		}
		var ps []store.Pending
		for i := range n {
			dst := name(fmt.Sprintf("rdst%d", i))
			if err := b.WriteFull(dst, []byte("old")); err != nil {
				t.Fatal(err)
			}
			from := src
			if i%4 == 3 {
				from = name("rmissing")
			}
			p, err := b.Submit(dst, a.Locate(from), store.CopyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		for i := n - 1; i >= 0; i-- {
			<-ps[i].Ready()
			dst := name(fmt.Sprintf("rdst%d", i))
			want := data
			if i%4 == 3 {
				want = []byte("old")
			}
			if got := read(t, b, dst, 8192, 0); !bytes.Equal(got, want) {
				t.Fatalf("copy %d: after Ready the destination holds %d bytes %.8q, want the copy's result", i, len(got), got)
			}
		}
		for i, p := range ps {
			err1, err2 := p.Wait(), p.Wait()
			if i%4 == 3 {
				if !errors.Is(err1, store.ErrNotFound) || !errors.Is(err2, store.ErrNotFound) {
					t.Fatalf("copy %d of a missing source: Wait = %v, then %v; want ENOENT both times", i, err1, err2)
				}
			} else if err1 != nil || err2 != nil {
				t.Fatalf("copy %d: Wait = %v, then %v", i, err1, err2)
			}
		}
	})
}
