package objcopy

import (
	"context"
	"sync"

	"github.com/radoscp/radoscp"
)

// snapGuard is the destination of a copy from a pool snapshot: before each
// checkpoint and publish it checks the snapshot is still there. A removed
// snapshot's objects may read as missing (copied as holes) or as anything
// the OSDs have not trimmed yet, but every read that completed before a
// check that found the snapshot read the snapshot, so what is published
// is the snapshot's. Once the check fails, the copy is stopped (cancel)
// and nothing more is published: the engine cuts back what was written
// past the last published EOF.
type snapGuard struct {
	radoscp.Destination
	check  func() error
	cancel context.CancelFunc

	mu  sync.Mutex
	err error
}

func (g *snapGuard) verify() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err == nil {
		g.err = g.check()
		if g.err != nil {
			g.cancel()
		}
	}
	return g.err
}

func (g *snapGuard) Checkpoint(eof uint64) error {
	if err := g.verify(); err != nil {
		return err
	}
	return g.Destination.Checkpoint(eof)
}

func (g *snapGuard) Publish(eof uint64) error {
	if err := g.verify(); err != nil {
		return err
	}
	return g.Destination.Publish(eof)
}

// failed is the check's failure, if any; nil for a nil guard.
func (g *snapGuard) failed() error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}
