package objtest

import (
	"bytes"
	"errors"
	"fmt"
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
	t.Run("copy replaces the whole destination", func(t *testing.T) {
		src, dst := name("csrc"), name("cdst")
		if err := a.WriteFull(src, []byte("new")); err != nil {
			t.Fatal(err)
		}
		if err := b.WriteFull(dst, bytes.Repeat([]byte("o"), 50)); err != nil {
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
}
