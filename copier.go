package radoscp

import "time"

// copier holds what the operations of one copy share. Copy makes one
// (copy.go); its methods are kept by concern:
//   - phase.go: planning a pass and running it through the window
//     (phase, checkpoint, start, copyFrom, punch);
//   - pin.go and pincheck.go: pinning source objects to one version
//     (checkRead, copyResult, awaitPins, pinsSettled, settlePins);
//   - rw.go: client read-and-writes, where copy-from cannot serve
//     (background, objectRW, extentRW).
type copier struct {
	e       *Engine
	src     Source
	dst     Destination
	opts    Options
	serial  bool
	res     *Result
	buffers *bufferPool
	auto    *autoWindow // nil for a fixed window
	pins    *pins       // nil unless Options.PinSource
	// head is how many of a phase's first operations, as copy-froms, go
	// without waiting for their pins (see pins): the first window's, at
	// most PinWidth of them (Copy).
	head uint64
	// earlyEnd bounds the source objects of operations submitted before
	// every pin had returned; recheck re-checks them (see pins).
	earlyEnd uint64
	recheck  *recheck
	clock    Clock

	lastCheckpoint time.Time
}
