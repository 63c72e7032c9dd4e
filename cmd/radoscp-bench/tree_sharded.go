package main

import (
	"context"

	"golang.org/x/sync/errgroup"

	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/shard"
)

// shardedWorkers is how many workers the sharded contender runs at once.
const shardedWorkers = 3

// shardedDefaults are radoscp cp's defaults, which each worker and the
// final pass copy with.
var shardedDefaults = contender{Mode: "fscopy", Files: 4, Window: 16}

// mountWorkers mounts the sharded contender's workers' file systems,
// each a client of its own (as workers on other hosts would be), before
// the run is timed.
func mountWorkers(cfg config.Config, f benchFlags) ([]*benchMount, func(), error) {
	var mounts []*benchMount
	closeAll := func() {
		for _, m := range mounts {
			m.close()
		}
	}
	for range shardedWorkers {
		m, err := mountBenchFS(cfg, f.fsName, true, injectDelay(f.injectDelay, f.injectDelayType))
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		mounts = append(mounts, m)
	}
	return mounts, closeAll, nil
}

// shardedOnce is the sharded contender: radoscp cp -r --shard K/N (and
// --shard-by dir with byDir), the N workers at once on mounts of their
// own, then --shard finish/N on mnt.
func shardedOnce(ctx context.Context, cfg config.Config, mnt *benchMount, workers []*benchMount, src, dst string, byDir bool) (runRecord, error) {
	recs := make([]runRecord, len(workers))
	g, gctx := errgroup.WithContext(ctx)
	for k, w := range workers {
		g.Go(func() error {
			var err error
			recs[k], err = fscopyOnce(gctx, cfg, w, src, dst, shardedDefaults, shard.Shard{K: k, N: len(workers), ByDir: byDir})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return runRecord{}, err
	}
	rec, err := fscopyOnce(ctx, cfg, mnt, src, dst, shardedDefaults, shard.Shard{N: len(workers), Finish: true, ByDir: byDir})
	for _, r := range recs {
		rec.ClientBytes += r.ClientBytes
		rec.LatencyMs = append(rec.LatencyMs, r.LatencyMs...)
		rec.Window = max(rec.Window, r.Window)
	}
	return rec, err
}
