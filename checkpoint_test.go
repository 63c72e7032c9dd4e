package radoscp_test

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/truncate"
)

// genDest is a raw destination that has a truncate generation and records
// the checkpoints the engine makes, checking each against the data in
// place at that moment.
type genDest struct {
	*truncate.Raw
	gen   rados.Generation
	check func(eof uint64)
}

func (d *genDest) Generation() rados.Generation { return d.gen }
func (d *genDest) Checkpoint(eof uint64) error  { d.check(eof); return nil }

// genRecorder remembers the generation each copy-from carried.
type genRecorder struct {
	rados.Objects
	mu   sync.Mutex
	gens map[string]rados.Generation
}

func (g *genRecorder) Submit(dstOid string, src rados.Objects, srcOid string, o rados.CopyOptions) (rados.Pending, error) {
	g.mu.Lock()
	g.gens[dstOid] = o.Generation
	g.mu.Unlock()
	return g.Objects.Submit(dstOid, src, srcOid, o)
}

// A copy that runs for longer than a second records checkpoints on the
// way, each one a prefix that was complete when recorded; every copy-from
// carries the destination's generation with the truncate size mapped onto
// its object.
func TestCheckpointsAndObjectGenerations(t *testing.T) {
	l := layout.Layout{StripeUnit: 64 << 10, StripeCount: 2, ObjectSize: 128 << 10}
	f := newFixture(t, l, 40*int(l.SetSize()))
	f.store.Latency = func(string) time.Duration { return 80 * time.Millisecond }
	rec := &genRecorder{Objects: f.dst, gens: map[string]rados.Generation{}}
	var checkpoints []uint64
	d := &genDest{
		Raw: truncate.NewRaw(rec, l, "dst", 0),
		gen: rados.Generation{Seq: 3, Size: 5*l.SetSize() + 70<<10},
		check: func(eof uint64) {
			if !bytes.Equal(f.read(t, 0, eof), f.data[:eof]) {
				t.Errorf("checkpoint %d: the prefix is not in place", eof)
			}
			checkpoints = append(checkpoints, eof)
		},
	}
	if _, err := f.engine.Copy(context.Background(), f.source, 0, d, 0, uint64(len(f.data)), radoscp.Options{Window: 4}); err != nil {
		t.Fatal(err)
	}
	if len(checkpoints) == 0 {
		t.Fatal("no checkpoint during a copy of over a second")
	}
	for i := 1; i < len(checkpoints); i++ {
		if checkpoints[i] <= checkpoints[i-1] {
			t.Fatalf("checkpoints %v do not grow", checkpoints)
		}
	}
	for obj := range l.ObjectsFor(uint64(len(f.data))) {
		want := rados.Generation{Seq: 3, Size: l.ObjectLength(d.gen.Size, obj)}
		if got := rec.gens[dstNames.ObjectName(obj)]; got != want {
			t.Fatalf("object %d: generation %+v, want %+v", obj, got, want)
		}
	}
}
