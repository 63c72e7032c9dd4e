package radoscp_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
	"github.com/radoscp/radoscp/truncate/desttest"
)

// genDest is a raw destination that has a truncate generation and records
// the checkpoints the engine makes, checking each against the data in
// place at that moment.
type genDest struct {
	*truncate.Raw
	gen   store.Generation
	check func(eof uint64)
}

func (d *genDest) Generation() store.Generation { return d.gen }
func (d *genDest) Checkpoint(eof uint64) error  { d.check(eof); return nil }

// genRecorder remembers the generation each copy-from carried.
type genRecorder struct {
	store.Objects
	mu   sync.Mutex
	gens map[string]store.Generation
}

func (g *genRecorder) Submit(dstOid string, src store.Location, o store.CopyOptions) (store.Pending, error) {
	g.mu.Lock()
	g.gens[dstOid] = o.Generation
	g.mu.Unlock()
	return g.Objects.Submit(dstOid, src, o)
}

// tickClock moves on by step every time it is read: with a step of a
// second or more, every completed operation is due a checkpoint, the last
// one too, without the test sleeping.
type tickClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *tickClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.step)
	return c.now
}

// A copy records checkpoints on the way, each one a prefix that was
// complete when recorded; every copy-from carries the destination's
// generation with the truncate size mapped onto its object.
func TestCheckpointsAndObjectGenerations(t *testing.T) {
	l := layout.Layout{StripeUnit: 64 << 10, StripeCount: 2, ObjectSize: 128 << 10}
	f := newFixture(t, l, 40*int(l.SetSize()))
	rec := &genRecorder{Objects: f.dst, gens: map[string]store.Generation{}}
	var checkpoints []uint64
	d := &genDest{
		Raw: truncate.NewRaw(rec, l, "dst", 0),
		gen: store.Generation{Seq: 3, Size: 5*l.SetSize() + 70<<10},
		check: func(eof uint64) {
			if !bytes.Equal(f.read(t, 0, eof), f.data[:eof]) {
				t.Errorf("checkpoint %d: the prefix is not in place", eof)
			}
			checkpoints = append(checkpoints, eof)
		},
	}
	if _, err := f.engine.Copy(context.Background(), f.source, 0, d, 0, uint64(len(f.data)), radoscp.Options{Window: 4, Clock: &tickClock{step: time.Second}}); err != nil {
		t.Fatal(err)
	}
	if len(checkpoints) < 10 {
		t.Fatalf("%d checkpoints in a copy of 80 objects with one due on every completion", len(checkpoints))
	}
	for i := 1; i < len(checkpoints); i++ {
		if checkpoints[i] <= checkpoints[i-1] {
			t.Fatalf("checkpoints %v do not grow", checkpoints)
		}
	}
	for obj := range l.ObjectsFor(uint64(len(f.data))) {
		want := store.Generation{Seq: 3, Size: l.ObjectLength(d.gen.Size, obj)}
		if got := rec.gens[dstNames.ObjectName(obj)]; got != want {
			t.Fatalf("object %d: generation %+v, want %+v", obj, got, want)
		}
	}
}

// A CephFS destination whose checkpoints land on every completion, the
// last one included, still ends with its size grown to the whole copy: a
// checkpoint records, only Publish makes a size visible (the short-copy
// bug on slow clusters). Windows 1 and 4, and a copy whose last
// completion is also its only checkpoint.
func TestCephFSCheckpointOnTheLastOperation(t *testing.T) {
	for _, c := range []struct {
		name   string
		window int
		step   time.Duration
	}{
		{"every operation, window 1", 1, time.Second},
		{"every operation, window 4", 4, time.Second},
		{"last operation only", 1, 300 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, small, 4*int(small.ObjectSize))
			file := desttest.NewFakeFile()
			d, err := truncate.NewCephFS(file, f.dst, small)
			if err != nil {
				t.Fatal(err)
			}
			var recorded []string
			res, err := f.engine.Copy(context.Background(), f.source, 0, d, 0, f.source.Size,
				radoscp.Options{Window: c.window, Clock: &tickClock{step: c.step}})
			if err != nil {
				t.Fatal(err)
			}
			v, _ := file.GetXattr(truncate.XattrEOF)
			recorded = append(recorded, string(v))
			size, _ := file.Size()
			if size != f.source.Size || res.PublishedEOF != f.source.Size || d.EOF() != f.source.Size {
				t.Fatalf("file size %d, published EOF %d (result %d), record %v; want %d", size, d.EOF(), res.PublishedEOF, recorded, f.source.Size)
			}
			ops := fmt.Sprint(file.Ops())
			if !strings.Contains(ops, fmt.Sprintf("truncate %d", f.source.Size)) {
				t.Fatalf("the file was never grown to %d: %s", f.source.Size, ops)
			}
		})
	}
}

// cancelAt cancels a copy when its complete prefix reaches at bytes.
type cancelAt struct {
	radoscp.NopObserver
	mu     sync.Mutex
	done   uint64
	at     uint64
	cancel context.CancelFunc
}

func (c *cancelAt) Progress(n uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done += n; c.done >= c.at {
		c.cancel()
	}
}

// An interrupt that lands on the last completion, with a checkpoint on
// every completion: whatever the copy reports, the size a reader sees is
// what it says it published, and a prefix it reports is in place.
func TestCancelOnTheLastOperation(t *testing.T) {
	for _, at := range []uint64{3, 4} { // objects: the one before last, the last
		t.Run(fmt.Sprintf("at object %d of 4", at), func(t *testing.T) {
			f := newFixture(t, small, 4*int(small.ObjectSize))
			file := desttest.NewFakeFile()
			d, err := truncate.NewCephFS(file, f.dst, small)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			obs := &cancelAt{at: at * small.ObjectSize, cancel: cancel}
			e := radoscp.NewEngine(obs, nil)
			res, err := e.Copy(ctx, f.source, 0, d, 0, f.source.Size, radoscp.Options{Window: 1, Clock: &tickClock{step: time.Second}})
			if ctx.Err() == nil {
				t.Fatal("the cancellation never happened")
			}
			size, _ := file.Size()
			if size != res.PublishedEOF || d.EOF() != res.PublishedEOF || res.Bytes > res.PublishedEOF {
				t.Fatalf("size %d, EOF %d, result %+v (err %v): a reader must see what was published", size, d.EOF(), res, err)
			}
			if res.Bytes < at*small.ObjectSize {
				t.Fatalf("reported %d bytes, but %d were complete when the interrupt came", res.Bytes, at*small.ObjectSize)
			}
			if err == nil && res.Bytes != f.source.Size {
				t.Fatalf("no error, but only %d of %d bytes", res.Bytes, f.source.Size)
			}
			t.Logf("cancelled at %d: %d bytes, published %d, err %v", at*small.ObjectSize, res.Bytes, res.PublishedEOF, err)
		})
	}
}
