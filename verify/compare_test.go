package verify_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados/fake"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
	"github.com/radoscp/radoscp/verify"
)

var l = layout.Layout{StripeUnit: 64 << 10, StripeCount: 2, ObjectSize: 128 << 10}

// file writes data as a dense file of layout l named prefix.
func file(t *testing.T, p store.Objects, prefix string, data []byte) radoscp.Source {
	t.Helper()
	names := layout.Prefix(prefix)
	for ext := range l.Extents(0, uint64(len(data))) {
		if err := p.Write(names.ObjectName(ext.ObjectNo), data[ext.FileOff:ext.FileOff+ext.Length], ext.ObjectOff); err != nil {
			t.Fatal(err)
		}
	}
	return radoscp.Source{Objects: p, Layout: l, Names: names, Size: uint64(len(data))}
}

// corruptions are the ways a destination can differ from its source; each
// must be found and named, on the fake and on the real cluster.
var corruptions = []struct {
	name  string
	apply func(t *testing.T, p store.Objects, names layout.Namer, size uint64)
	want  string // in the difference's text
	obj   int    // the object named, -1 for the whole file
}{
	{"one byte changed", func(t *testing.T, p store.Objects, n layout.Namer, _ uint64) {
		if err := p.Write(n.ObjectName(3), []byte{0xff}, 777); err != nil {
			t.Fatal(err)
		}
	}, "data differs", 3},
	{"other bytes put", func(t *testing.T, p store.Objects, n layout.Namer, _ uint64) {
		if err := p.WriteFull(n.ObjectName(2), []byte(strings.Repeat("x", 128<<10))); err != nil {
			t.Fatal(err)
		}
	}, "data differs", 2},
	{"a truncated object", func(t *testing.T, p store.Objects, n layout.Namer, _ uint64) {
		if err := p.Truncate(n.ObjectName(4), 1000); err != nil {
			t.Fatal(err)
		}
	}, "not zeros", 4},
	{"a missing object", func(t *testing.T, p store.Objects, n layout.Namer, _ uint64) {
		if err := p.Remove(n.ObjectName(1)); err != nil {
			t.Fatal(err)
		}
	}, "destination has a hole", 1},
	{"an extra object past EOF", func(t *testing.T, p store.Objects, n layout.Namer, size uint64) {
		if err := p.WriteFull(n.ObjectName(l.ObjectsFor(size)), []byte("stale")); err != nil {
			t.Fatal(err)
		}
	}, "past the end of the file", 6},
	{"data past EOF in the last object", func(t *testing.T, p store.Objects, n layout.Namer, size uint64) {
		last := l.ObjectsFor(size) - 1
		if err := p.Write(n.ObjectName(last), []byte("stale"), l.ObjectLength(size, last)); err != nil {
			t.Fatal(err)
		}
	}, "past the end of the file's data", 5},
}

// run checks a clean copy and every corruption on pools a (source) and b.
func run(t *testing.T, a, b store.Objects, prefix string) {
	data := test.RandomData(1, int(3*l.SetSize()-5000)) // 6 objects, the last partial
	src := file(t, a, prefix+"src", data)
	t.Run("identical", func(t *testing.T) {
		dst := file(t, b, prefix+"same", data)
		res, err := verify.Compare(context.Background(), src, dst, 8)
		if err != nil || !res.Same() || res.Objects != 6 || res.Bytes != uint64(len(data)) {
			t.Fatalf("%+v, %v; want 6 objects and %d bytes the same", res, err, len(data))
		}
		if res.ClientBytes*100 >= res.Bytes {
			t.Fatalf("%d client bytes to verify %d bytes: over 1%%", res.ClientBytes, res.Bytes)
		}
	})
	t.Run("holes on both sides", func(t *testing.T) {
		s := file(t, a, prefix+"hsrc", data)
		d := file(t, b, prefix+"hdst", data)
		for _, side := range []radoscp.Source{s, d} {
			if err := side.Objects.Remove(side.Names.ObjectName(2)); err != nil {
				t.Fatal(err)
			}
		}
		if res, err := verify.Compare(context.Background(), s, d, 8); err != nil || !res.Same() {
			t.Fatalf("%+v, %v", res, err)
		}
	})
	t.Run("sizes differ", func(t *testing.T) {
		d := file(t, b, prefix+"short", data[:len(data)-10])
		res, err := verify.Compare(context.Background(), src, d, 8)
		if err != nil || res.Same() || !strings.Contains(res.Differences[0].String(), "size") {
			t.Fatalf("%+v, %v", res, err)
		}
	})
	for i, c := range corruptions {
		t.Run(c.name, func(t *testing.T) {
			dst := file(t, b, prefix+"c"+string(rune('a'+i)), data)
			c.apply(t, b, dst.Names, dst.Size)
			res, err := verify.Compare(context.Background(), src, dst, 8)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Differences) != 1 || !strings.Contains(res.Differences[0].What, c.want) ||
				res.Differences[0].Object != b.Ref(dst.Names.ObjectName(uint64(c.obj))) {
				t.Fatalf("differences %v; want one naming object %d: %q", res.Differences, c.obj, c.want)
			}
			t.Log(res.Differences[0])
		})
	}
	t.Run("different layouts", func(t *testing.T) {
		d := file(t, b, prefix+"lay", data)
		d.Layout = layout.Layout{StripeUnit: 64 << 10, StripeCount: 1, ObjectSize: 64 << 10}
		if _, err := verify.Compare(context.Background(), src, d, 8); err == nil {
			t.Fatal("compared objects of different layouts")
		}
	})
}

func TestCompareFake(t *testing.T) {
	s := fake.New()
	run(t, s.Pool("a"), s.Pool("b"), "")
}

// Through the client, files of different layouts are compared byte by
// byte; a changed byte is found; checksums refuse the same pair.
func TestCompareClientAcrossLayouts(t *testing.T) {
	s := fake.New()
	a, b := s.Pool("a"), s.Pool("b")
	data := test.RandomData(2, int(3*l.SetSize()-5000))
	src := file(t, a, "src", data)
	other := layout.Layout{StripeUnit: 64 << 10, StripeCount: 1, ObjectSize: 64 << 10}
	dst := radoscp.Source{Objects: b, Layout: other, Names: layout.Prefix("dst"), Size: uint64(len(data))}
	for ext := range other.Extents(0, dst.Size) {
		if err := b.Write(dst.Names.ObjectName(ext.ObjectNo), data[ext.FileOff:ext.FileOff+ext.Length], ext.ObjectOff); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := verify.Check(context.Background(), verify.OSD, src, dst, 4); !errors.Is(err, verify.ErrCannotVerify) {
		t.Fatalf("OSD checksums across layouts: %v, want ErrCannotVerify", err)
	}
	res, err := verify.Check(context.Background(), verify.Client, src, dst, 4)
	if err != nil || !res.Same() || res.ClientBytes != 2*dst.Size {
		t.Fatalf("%+v, %v", res, err)
	}
	if err := b.Write(dst.Names.ObjectName(7), []byte{0xee}, 5); err != nil {
		t.Fatal(err)
	}
	res, err = verify.Check(context.Background(), verify.Client, src, dst, 4)
	if err != nil || len(res.Differences) != 1 || !strings.Contains(res.Differences[0].What, fmt.Sprint(7*64<<10+5)) {
		t.Fatalf("%+v, %v; want the byte at %d named", res, err, 7*64<<10+5)
	}
}
