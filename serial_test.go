package radoscp_test

import (
	"context"
	"errors"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados/fake"
	"github.com/radoscp/radoscp/rados/faults"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
)

// lateWrites counts the writes a destination receives after one of its
// writes failed.
type lateWrites struct {
	store.Objects
	failed atomic.Bool
	late   atomic.Int32
}

func (w *lateWrites) note(err error) error {
	if err != nil {
		w.failed.Store(true)
	}
	return err
}

func (w *lateWrites) before() {
	if w.failed.Load() {
		w.late.Add(1)
	}
}

func (w *lateWrites) Write(oid string, data []byte, off uint64) error {
	w.before()
	return w.note(w.Objects.Write(oid, data, off))
}

func (w *lateWrites) Zero(oid string, off, n uint64) error {
	w.before()
	return w.note(w.Objects.Zero(oid, off, n))
}

func (w *lateWrites) WriteFull(oid string, data []byte) error {
	w.before()
	return w.note(w.Objects.WriteFull(oid, data))
}

// A copy into the middle of existing data runs one operation at a time,
// and after a failed operation it writes nothing more: the next operation
// starts only once the one ahead has succeeded. (The window may start an
// operation as soon as the one ahead completes, before looking at its
// result; a serial copy must not let it. Under load the race was met by
// the soak test: a write past the failed operation's range.) The client
// path, whose operations complete from goroutines of their own, is where
// the two events race; repeated so the race has many chances.
func TestSerialCopyWritesNothingAfterAFailure(t *testing.T) {
	l := layout.Layout{StripeUnit: 64 << 10, StripeCount: 1, ObjectSize: 64 << 10}
	const objs = 16
	obj := uint64(l.ObjectSize)
	srcNames, dstNames := layout.Prefix("src"), layout.Prefix("dst")
	data := randomData(3, int(objs*obj))
	old := randomData(4, int(objs*obj))
	for i := range 200 {
		st := fake.New()
		srcP, dstP := st.Pool("a"), st.Pool("b")
		writeFile(t, srcP, l, srcNames, 0, data)
		writeFile(t, dstP, l, dstNames, 0, old)
		in := faults.New(uint64(i), faults.Rule{Kind: faults.Write, Object: dstNames.ObjectName(6), Errno: syscall.ENOSPC})
		w := &lateWrites{Objects: in.Wrap(dstP)}
		src := radoscp.Source{Objects: srcP, Layout: l, Names: srcNames, Size: objs * obj}
		// Misaligned by 1000 bytes: every operation goes through the
		// client, and each one's destination range spans two objects.
		res, err := radoscp.NewEngine(nil, quiet).Copy(context.Background(), src, 1000,
			truncate.NewRaw(w, l, "dst", objs*obj), 2*obj, 8*obj, radoscp.Options{Window: 16, Chunk: obj})
		if !errors.Is(err, syscall.ENOSPC) || !res.Serial {
			t.Fatalf("run %d: serial %v, %v; want a serial copy failing with ENOSPC", i, res.Serial, err)
		}
		if in.Hits() == 0 {
			t.Fatalf("run %d: the write fault never landed", i)
		}
		if n := w.late.Load(); n > 0 {
			t.Fatalf("run %d: %d writes after the failed one (result %+v): a serial copy went on past a failure", i, n, res)
		}
	}
}
