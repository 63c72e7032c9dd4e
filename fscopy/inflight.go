package fscopy

import (
	"context"

	"golang.org/x/sync/semaphore"
)

// Files in flight. A small file's copy is a few MDS round trips and one
// write, each of which waits: copied one after another they leave the
// MDS, the OSDs and this client idle most of the time. A large file's
// copy already keeps its window of copy-froms in flight. So a tree copy
// has up to Options.Files large files in flight, or up to smallPerSlot
// times as many small ones, or a mix: each file takes its weight from one
// budget of Files*smallPerSlot.
const (
	// smallFile is the size up to which a file weighs 1: one client
	// read-and-write of at most this many bytes.
	smallFile = 1 << 20
	// smallPerSlot is how many small files weigh as much as one large.
	smallPerSlot = 8
)

// fileWeight is a file's share of the in-flight budget.
func fileWeight(size uint64) int64 {
	if size <= smallFile {
		return 1
	}
	return smallPerSlot
}

func newInFlight(files int) *semaphore.Weighted {
	return semaphore.NewWeighted(int64(max(files, 1)) * smallPerSlot)
}

// goFile runs copy in the tree copy's group once a file of size bytes
// fits in the budget; it waits until then. When ctx ends first, copy
// still runs, outside the budget, so that it can report the file and let
// what waits for it (hard links) go on; it returns false then. copy must
// do nothing but that once ctx has ended.
func (t *treeCopy) goFile(ctx context.Context, size uint64, copy func()) bool {
	w := fileWeight(size)
	if err := t.inFlight.Acquire(ctx, w); err != nil {
		t.g.Go(func() error {
			copy()
			return nil
		})
		return false
	}
	t.g.Go(func() error {
		defer t.inFlight.Release(w)
		copy()
		return nil
	})
	return true
}
