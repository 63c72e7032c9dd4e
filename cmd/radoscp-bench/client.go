package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados"
)

// clientCopy is the client contender: it copies objects objects of
// objectSize bytes from the src names to the dst names by reading every
// byte into this client and writing it back, as CephFS clones and cp do,
// chunk bytes per read and write and up to window of them at once. It
// uses librados reads and writes only, not radoscp's engine, so that the
// engine carries nothing for the bench. Like the client copy of old, it
// has no per-copy latency; its client bytes are what it read and wrote.
//
// On failure or cancellation it stops starting chunks, waits for those
// running and returns the first error; the destination objects written so
// far are left for the caller to remove.
func clientCopy(ctx context.Context, pool *rados.Pool, src, dst layout.Namer, objects int, objectSize, chunk uint64, window int) (runRecord, error) {
	rec := runRecord{Window: window, ClientMeasured: true}
	window = max(window, 1)
	// At most window buffers, allocated on first use: what a client
	// copy at that window holds.
	free := make(chan []byte, window)
	size := min(chunk, objectSize)
	var moved atomic.Uint64
	before := rusage(syscall.RUSAGE_SELF)
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(window)
	for i := range uint64(objects) {
		for off := uint64(0); off < objectSize && gctx.Err() == nil; off += size {
			g.Go(func() error {
				var buf []byte
				select {
				case buf = <-free:
				default:
					buf = make([]byte, size)
				}
				defer func() { free <- buf }()
				b := buf[:min(size, objectSize-off)]
				n, err := pool.Read(src.ObjectName(i), b, off)
				if err != nil {
					return err
				}
				if n != len(b) {
					return fmt.Errorf("read %s at %d: %d bytes, want %d", pool.Ref(src.ObjectName(i)), off, n, len(b))
				}
				if err := pool.Write(dst.ObjectName(i), b, off); err != nil {
					return err
				}
				moved.Add(2 * uint64(n))
				return nil
			})
		}
	}
	err := g.Wait()
	if err == nil {
		err = ctx.Err()
	}
	rec.Seconds = time.Since(start).Seconds()
	after := rusage(syscall.RUSAGE_SELF)
	rec.ClientBytes = moved.Load()
	rec.CPUSeconds = cpuSeconds(after) - cpuSeconds(before)
	rec.MaxRSSBytes = uint64(after.Maxrss) << 10
	return rec, err
}
