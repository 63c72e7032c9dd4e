package fscopy

import (
	"context"
	"sync"
	"testing"
)

// Files in flight: with Files 2, eight small files and one large one use
// the whole budget; nothing more fits until one ends, and then exactly
// its weight does.
func TestInFlightBudget(t *testing.T) {
	tc := &treeCopy{inFlight: newInFlight(2)}
	ctx := context.Background()
	release := make(chan struct{})
	var started sync.WaitGroup
	start := func(size uint64) {
		started.Add(1)
		if !tc.goFile(ctx, size, func() { started.Done(); <-release }) {
			t.Fatal("goFile refused with ctx alive")
		}
	}
	start(smallFile + 1) // large: weighs smallPerSlot
	for range smallPerSlot {
		start(smallFile) // small: 1 each
	}
	started.Wait()
	if tc.inFlight.TryAcquire(1) {
		t.Fatalf("room for another file with 1 large and %d small ones in flight at Files 2", smallPerSlot)
	}
	release <- struct{}{} // one of them ends
	for !tc.inFlight.TryAcquire(1) {
		// until that file has released its weight
	}
	close(release)
	tc.g.Wait()
	tc.inFlight.Release(1)
	if !tc.inFlight.TryAcquire(2 * smallPerSlot) {
		t.Fatal("the budget was not all given back")
	}
	// With the budget full and ctx ended, the copy still runs (to report
	// the file), outside the budget.
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	ran := false
	if tc.goFile(canceled, 1, func() { ran = true }) {
		t.Fatal("goFile took budget that was not there")
	}
	tc.g.Wait()
	if !ran {
		t.Fatal("the copy of a file met after ctx ended did not run: it could not report the file")
	}
	tc.inFlight.Release(2 * smallPerSlot)
	if !tc.inFlight.TryAcquire(2 * smallPerSlot) {
		t.Fatal("a copy outside the budget took some of it")
	}
}

func TestFileWeight(t *testing.T) {
	for _, tc := range []struct {
		size uint64
		want int64
	}{{0, 1}, {4096, 1}, {smallFile, 1}, {smallFile + 1, smallPerSlot}, {1 << 30, smallPerSlot}} {
		if got := fileWeight(tc.size); got != tc.want {
			t.Errorf("fileWeight(%d) = %d, want %d", tc.size, got, tc.want)
		}
	}
}
