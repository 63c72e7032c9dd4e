package main

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/shard"
)

// runFSOne runs one cephfs contender once: it copies the files of
// FS-DIR/src into the new directory --dst-prefix. The time, CPU and
// latencies (one per file) cover the copy and the final sync of the file
// system, not connecting and mounting.
func runFSOne(ctx context.Context, cfg config.Config, f benchFlags, c contender) (runRecord, error) {
	if f.tree != "" {
		return runTreeOne(ctx, cfg, f, c)
	}
	src := path.Join(f.fsDir, "src")
	return measureFSOne(ctx, cfg, f, c, func(mnt *benchMount) (runRecord, error) {
		if c.Mode == "clone" {
			return cloneAnchor(ctx, mnt.fs, src, f.dstPrefix, c.Files)
		}
		return fscopyOnce(ctx, cfg, mnt, src, f.dstPrefix, c, shard.None)
	})
}

// measureFSOne mounts the file system for contender c and measures copy,
// then the final sync of the file system: wall time, this process's CPU
// and its peak RSS.
func measureFSOne(ctx context.Context, cfg config.Config, f benchFlags, c contender, copy func(*benchMount) (runRecord, error)) (runRecord, error) {
	// The anchor mounts as ceph-mgr does, with libcephfs's defaults
	// (the client object cache on); radoscp's rows as radoscp cp does.
	mnt, err := mountBenchFS(cfg, f.fsName, c.Mode != "clone", injectDelay(f.injectDelay, f.injectDelayType))
	if err != nil {
		return runRecord{}, err
	}
	defer mnt.close()
	before := rusage(syscall.RUSAGE_SELF)
	start := time.Now()
	rec, err := copy(mnt)
	if err == nil {
		err = mnt.fs.SyncFS()
	}
	rec.Seconds = time.Since(start).Seconds()
	after := rusage(syscall.RUSAGE_SELF)
	if err != nil {
		return rec, err
	}
	rec.ClientMeasured = true
	rec.CPUSeconds = cpuSeconds(after) - cpuSeconds(before)
	rec.MaxRSSBytes = uint64(after.Maxrss) << 10
	return rec, nil
}

// cloneAnchor copies every regular file of src into the new directory dst
// as ceph-mgr's subvolume clones do: open, read and write cloneChunk bytes
// at a time through libcephfs, close; files files at once.
func cloneAnchor(ctx context.Context, cfs *cephfs.FS, src, dst string, files int) (runRecord, error) {
	rec := runRecord{Window: files}
	entries, err := cfs.ReadDir(src)
	if err != nil {
		return rec, err
	}
	if err := cfs.Mkdir(dst, 0o755); err != nil {
		return rec, err
	}
	var mu sync.Mutex
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(files)
	for _, e := range entries {
		if !e.Stat.IsRegular() {
			continue
		}
		g.Go(func() error {
			t := time.Now()
			n, err := copyChunks(ctx, cfs, path.Join(src, e.Name), path.Join(dst, e.Name), e.Stat.Perm())
			mu.Lock()
			defer mu.Unlock()
			rec.ClientBytes += 2 * n
			if err == nil {
				rec.LatencyMs = append(rec.LatencyMs, msOf(time.Since(t)))
			}
			return err
		})
	}
	return rec, g.Wait()
}

// copyChunks copies the file src to the new file dst, cloneChunk bytes at
// a time, and returns how many bytes it read.
func copyChunks(ctx context.Context, cfs *cephfs.FS, src, dst string, perm uint32) (uint64, error) {
	in, err := cfs.OpenRead(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := cfs.CreateExclusive(dst, perm)
	if err != nil {
		return 0, err
	}
	buf := make([]byte, cloneChunk)
	var off uint64
	for ctx.Err() == nil {
		n, err := in.ReadAt(buf, off)
		if err == nil && n > 0 {
			err = out.WriteAt(buf[:n], off)
		}
		off += uint64(n)
		if err != nil {
			out.Close()
			return off, err
		}
		if n < len(buf) {
			break
		}
	}
	if err := out.Close(); err != nil {
		return off, err
	}
	return off, ctx.Err()
}

// fscopyOnce copies src to dst with radoscp's file copier (cp -r): files
// files at once, each with window c.Window, or --window auto for 0; one
// worker's share, or the final pass, of a sharded copy with sh.
func fscopyOnce(ctx context.Context, cfg config.Config, mnt *benchMount, src, dst string, c contender, sh shard.Shard) (runRecord, error) {
	var rec runRecord
	obs := &benchObserver{}
	opts := fscopy.Options{
		Copy:  radoscp.Options{Window: c.Window, Auto: c.Window == 0, MaxWindow: cfg.MaxWindow, Chunk: cfg.Chunk},
		Files: c.Files,
		Sync:  fscopy.SyncFS,
		Shard: sh,
	}
	var failures []error
	report := func(r fscopy.Report) {
		switch {
		case r.Outcome == fscopy.Failed:
			failures = append(failures, fmt.Errorf("cephfs:%s: %w", r.Src, r.Err))
		case r.Outcome == fscopy.Copied:
			rec.LatencyMs = append(rec.LatencyMs, msOf(r.Result.Elapsed))
			rec.Window = max(rec.Window, r.Result.Window)
		}
	}
	// The copier's observer counts client bytes; its per-copy-from
	// latencies are not reported, as the anchor has none to compare with.
	copier := fscopy.New(radoscp.NewEngine(obs, nil), mnt.conn, mnt.fs, opts, report)
	sum, err := copier.Copy(ctx, src, dst, true)
	rec.ClientBytes = obs.clientBytes()
	if err != nil {
		return rec, errors.Join(append([]error{err}, failures...)...)
	}
	if sum.Skipped > 0 {
		return rec, fmt.Errorf("skipped %d paths: the sources are regular files only", sum.Skipped)
	}
	return rec, nil
}
