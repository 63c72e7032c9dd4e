package fscopy

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/shard"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/verify"
)

// Sync is when copied data is made durable.
type Sync string

const (
	// Every file is fsynced before it is renamed into place, whatever
	// the Sync: that flush is what makes its size and metadata known to
	// the MDS (see CopyFile). Sync is about the rest: directories and
	// symlinks.
	SyncFile Sync = "file" // the same as SyncFS (kept for existing scripts)
	SyncFS   Sync = "fs"   // one sync of the file system at the end (the default)
	SyncOff  Sync = "off"  // no sync at the end, for throwaway clones
)

// ParseSync checks a --sync value.
func ParseSync(s string) (Sync, error) {
	switch Sync(s) {
	case SyncFile, SyncFS, SyncOff:
		return Sync(s), nil
	case "":
		return SyncFS, nil
	}
	return "", fmt.Errorf("sync %q: expected file, fs or off", s)
}

// Options tune file copies.
type Options struct {
	// Copy is passed to the engine for each file (window, chunk,
	// offload-only).
	Copy radoscp.Options
	// Files is how many files are copied at once; 0 or less means 1.
	// Files of at most 1 MiB count as 1/8 of a file each (see
	// fileWeight): up to 8*Files of them are in flight.
	Files int
	// NoPreserve skips ownership, times and xattrs (the mode is the
	// source's, without setuid, setgid and group/other write).
	NoPreserve bool
	// Resume continues interrupted copies from their staging files.
	Resume bool
	// NoClobber leaves every existing destination path alone: a file
	// copy onto one is refused (ErrUsage), a tree copy skips it.
	NoClobber bool
	// IgnoreTimes copies every file of a tree, also those whose
	// destination already has their size, mtime, mode and owner.
	IgnoreTimes bool
	// DryRun reports what a copy or migrate would do and writes
	// nothing (see dryrun.go).
	DryRun bool
	Sync   Sync
	// Delete makes a tree copy remove, once the copy is complete and
	// nothing of it failed, the target's entries that the source does
	// not have (rsync's --delete-after; delete.go). MaxDelete bounds
	// the removals: NoDeleteLimit for none; 0, the zero value, removes
	// nothing and counts what it would (rsync's --max-delete=0).
	Delete    bool
	MaxDelete int
	// PruneSettle is how old a source snapshot must be for a tree copy
	// to skip its unchanged subtrees by their rctime (prune.go): 0 means
	// DefaultPruneSettle, a negative value no wait (for callers that
	// have waited for the MDS to propagate the snapshot's rstats).
	PruneSettle time.Duration
	// PruneSkew is how far behind the MDS's clock a writing client's may be:
	// subtrees changed that long before the last copied snapshot are
	// walked too. 0 means DefaultPruneSkew, a negative value none.
	PruneSkew time.Duration
	// Filter leaves paths of a tree copy or migrate out (nil: none).
	Filter *Filter
	// Striping, when set, is the destination files' layout instead of
	// the source's; copies then go through the client.
	Striping *layout.Layout
	// Pool, when set, is the destination files' data pool instead of the
	// one their directory gives them.
	Pool string
	// Verify checks each copy against its source before it is put in
	// place (verify.Off, OSD or Client); a difference leaves the
	// destination as it was.
	Verify verify.Mode
	// Shard, when set, makes the copy, migration or verification one
	// worker's share of a tree, or the final pass (shard.go).
	Shard shard.Shard
	// WrapObjects, when set, wraps the object I/O of every source and
	// destination pool: fault injection (package rados/faults) in tests
	// and soak runs.
	WrapObjects func(store.Objects) store.Objects
}

// Copier copies CephFS files over one connection and mount.
type Copier struct {
	engine *radoscp.Engine
	conn   *rados.Conn
	fs     *cephfs.FS
	opts   Options
	report func(Report)
	hooks  hooks // none but in tests

	mu    sync.Mutex
	pools map[poolKey]*rados.Pool
	snaps map[string]*snapshot // source snapshots, by root
	// dirLayouts is the layout the last new staging file in each
	// destination directory got (see inheritedLayout).
	dirLayouts layoutMemory
	// srcLayouts is the layout last read of a file in each source
	// directory (see sourceLayout).
	srcLayouts layoutMemory
	repMu      sync.Mutex

	settling     sync.WaitGroup // copied files being settled (settle.go)
	settleErrs   []Report       // under mu
	settlesLetGo atomic.Int64   // files settle let go at settleLimit, write caps still held
	settlesLeft  atomic.Int64   // files settle left alone: another client changed them
	placed       placedLog      // files put in place (reconnect.go)
	quotas       quotas         // the destination's quota directories (quota.go)
	creator      creator        // the uid this client creates files as (stagingowner.go)
}

// New returns a copier; report (nil for none) receives each file's
// outcome, one call at a time.
func New(engine *radoscp.Engine, conn *rados.Conn, fs *cephfs.FS, opts Options, report func(Report)) *Copier {
	if report == nil {
		report = func(Report) {}
	}
	c := &Copier{engine: engine, conn: conn, fs: fs, opts: opts, report: report, pools: map[poolKey]*rados.Pool{},
		snaps: map[string]*snapshot{}}
	c.dirLayouts.passes, c.srcLayouts.passes = c.hasNoLayout, anyDir
	c.noteMDS()
	return c
}

func (c *Copier) emit(r Report) {
	c.repMu.Lock()
	defer c.repMu.Unlock()
	c.report(r)
}

type poolKey struct {
	pool, ns string
	snap     uint64
}

// pool opens (once) the pool and namespace a layout names, reading at
// snapshot snap (0: head). A snapshot's reads, stats and copy-froms all
// go through such a pool, so none of them sees head.
func (c *Copier) pool(l cephfs.FileLayout, snap uint64) (store.Objects, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := poolKey{l.Pool, l.Namespace, snap}
	p := c.pools[key]
	if p == nil {
		var err error
		if p, err = c.conn.OpenPoolAt(l.Pool, l.Namespace, snap); err != nil {
			return nil, err
		}
		c.pools[key] = p
	}
	if c.opts.WrapObjects != nil {
		return c.opts.WrapObjects(p), nil
	}
	return p, nil
}
