package objcopy

import (
	"context"
	"errors"
	"testing"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
)

// A copy from a pool snapshot checks the snapshot before it publishes:
// one removed during the copy fails it, and nothing read since the last
// check is published. One that stays is copied and published whole.
func TestSnapshotRemovedPublishesNothing(t *testing.T) {
	for _, removed := range []bool{false, true} {
		pools := newFakePools("a", "b")
		a, _ := pools.Pool("a", "")
		b, _ := pools.Pool("b", "")
		stripedSource(t, a, "src", srcSize)
		snap := &fakeSnap{name: "s1", live: 1 << 20}
		if removed {
			snap.live = 0
		}
		pools.snaps = map[string]*fakeSnap{"s1": snap}
		req := wholeCopy(t, "striper:a/src", "striper:b/dst")
		req.Snap = "s1"
		req.Options.PinSource = true // a snapshot cannot change: the guard turns pins off
		_, err := New(radoscp.NewEngine(nil, nil), pools, nil).Copy(context.Background(), req)
		meta, merr := truncate.ReadStriperMeta(b, "dst")
		if merr != nil {
			t.Fatal(merr)
		}
		if snap.checks == 0 {
			t.Fatalf("removed %v: the snapshot was never checked", removed)
		}
		if !removed {
			if err != nil || meta.Size != srcSize {
				t.Fatalf("copy from a snapshot that stays: %v, published %d; want %d", err, meta.Size, srcSize)
			}
			continue
		}
		if !errors.Is(err, store.ErrSnapshotRemoved) {
			t.Fatalf("copy from a snapshot removed during it: %v, want ErrSnapshotRemoved", err)
		}
		if meta.Size != 0 {
			t.Fatalf("published EOF %d after the snapshot was found gone, want 0", meta.Size)
		}
	}
}
