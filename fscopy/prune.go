package fscopy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/store"
)

// Incremental copies of snapshots (rctime pruning). A tree copy whose
// source is inside a snapshot, DIR/.snap/NAME[/PATH], that completes with
// no failure, with --delete and no filter, records on its target
// (xattrSynced) which snapshot it made the target a mirror of, with the
// snapshot's creation time (ceph.snap.btime, the MDS's clock). A later
// copy of a newer snapshot of the same DIR and PATH into that target
// skips every source directory whose ceph.dir.rctime (the newest ctime
// of the directory and of anything below it) is older than that time,
// without listing it or its target: nothing below it changed since the
// recorded snapshot, whose copy the target holds, so nothing there is to
// copy or delete.
//
// Why that holds, checked on Ceph 16.2 (TestPruneRctimeFacts):
//   - every change a copy must carry moves the ctime of an inode in the
//     subtree or of the directory itself: a write (also at the same size
//     with the mtime restored: setting the mtime moves the ctime),
//     truncate, chmod, chown, setxattr, and an entry created, removed or
//     renamed (its parent's mtime and ctime). rctime is a maximum: a
//     subtree moved away does not lower it.
//   - with mds_snap_rstat off (the default) the rstats of a directory in
//     a snapshot are the live directory's: they move on after the
//     snapshot, never back, so a snapshot's rctime can be too new, which
//     costs a walk, but not too old once the MDS has propagated them.
//     With it on (cephfs.SnapRstat) they are the snapshot's own, which
//     may lack what was not propagated when it was taken: not pruned.
//   - rstats propagate up the tree lazily (mds_dirstat_min_interval, the
//     MDS's tick): right after a change an ancestor's rctime can be older
//     than it. A live source is therefore always walked in full; a
//     snapshot younger than Options.PruneSettle is too.
//   - ctimes of data writes are stamped by the writing client's clock,
//     the snapshot's btime by the MDS's: the cut-off is the recorded
//     btime less Options.PruneSkew.
//   - a hard link's rstats count only at its primary name: a change made
//     through one name does not move the rctime of another name's
//     directory. A copy of a tree that had files with more than one link
//     records so, and the next copy is not pruned.
//
// The record is removed before a copy writes anything, and written again
// only when the copy is complete: a copy that was interrupted or failed
// leaves none, and its rerun walks the whole tree.

// xattrSynced records, on a tree copy's target, the snapshot it is a
// mirror of (a JSON syncedRecord).
const xattrSynced = "user.radoscp.synced"

// xattrRctime and xattrSnapBtime are the CephFS virtual xattrs read.
const (
	xattrRctime    = "ceph.dir.rctime"
	xattrSnapBtime = "ceph.snap.btime"
)

// DefaultPruneSettle is Options.PruneSettle's default: how old a
// snapshot must be before its rctimes are trusted (the MDS propagates
// rstats within seconds, on its tick).
const DefaultPruneSettle = time.Minute

// DefaultPruneSkew is Options.PruneSkew's default.
const DefaultPruneSkew = 2 * time.Minute

// Scan names how a tree copy found what to copy (Summary.Scan).
const (
	ScanFull   = "full"   // every directory listed, every file quick-checked
	ScanRctime = "rctime" // unchanged subtrees skipped by their rctime
)

// syncedRecord is what xattrSynced holds.
type syncedRecord struct {
	// Dir is the snapshotted directory (DIR of DIR/.snap/NAME), Path the
	// copy's source below the snapshot ("" for the snapshot itself).
	Dir  string `json:"dir"`
	Path string `json:"path"`
	Snap string `json:"snapshot"`
	ID   uint64 `json:"id"`
	// Btime is the snapshot's ceph.snap.btime, as Ceph writes it.
	Btime string `json:"btime"`
	// HardLinks says the tree had files with more than one link.
	HardLinks bool `json:"hard_links"`
}

// pruning is a tree copy's rctime pruning: nil when the whole tree is
// walked.
type pruning struct {
	cutoff time.Time
	// skipped are the source directories pruned, read by the deletion
	// pass after the walk (the walk adds to it from one goroutine).
	skipped map[string]bool
	kept    keptListings
}

// snapSource is the snapshot a tree copy reads, split as the record
// keeps it.
type snapSource struct {
	*snapshot
	dir, name, rel string
	btime          time.Time
	btimeRaw       string
}

// incremental decides whether the tree copy of src (in snapshot snap,
// nil at head) into dst is pruned, and says why not when it is not.
func (c *Copier) incremental(src, dst string, snap *snapshot) (*pruning, *snapSource, string) {
	if !c.opts.Delete {
		return nil, nil, "no --delete" // not a mirror: no record, nothing to say
	}
	if snap == nil {
		return nil, nil, "the source is not a snapshot: a live tree's rctime lags its changes"
	}
	ss, err := c.snapSource(src, snap)
	if err != nil {
		return nil, nil, err.Error()
	}
	switch {
	case c.opts.IgnoreTimes:
		return nil, ss, "--ignore-times"
	case c.opts.Filter != nil:
		return nil, ss, "a filter is set"
	case c.opts.Shard.On():
		return nil, ss, "a sharded copy"
	}
	v, err := c.fs.GetXattr(dst, xattrSynced)
	if err != nil {
		return nil, ss, "the target records no complete copy of a snapshot"
	}
	if c.conn != nil {
		switch on, err := cephfs.SnapRstat(c.conn); {
		case err != nil:
			return nil, ss, fmt.Sprintf("cannot tell whether snapshots keep rstats of their own (%v)", err)
		case on:
			return nil, ss, "mds_snap_rstat is on: a snapshot's rctimes are its own, and may miss changes not yet propagated when it was taken"
		}
	}
	var rec syncedRecord
	if err := json.Unmarshal(v, &rec); err != nil {
		return nil, ss, fmt.Sprintf("the target's %s is not radoscp's record: %v", xattrSynced, err)
	}
	last, err := parseCephTime(rec.Btime)
	if err != nil {
		return nil, ss, fmt.Sprintf("the target's record: %v", err)
	}
	settle := c.opts.PruneSettle
	if settle == 0 {
		settle = DefaultPruneSettle
	}
	switch {
	case rec.Dir != ss.dir || rec.Path != ss.rel:
		return nil, ss, fmt.Sprintf("the target was last copied from a snapshot of cephfs:%s (path %q)", rec.Dir, rec.Path)
	case rec.HardLinks:
		return nil, ss, "the tree had hard links at the last copy (a change through one link does not move another's directory's rctime)"
	case ss.btime.Before(last):
		return nil, ss, fmt.Sprintf("snapshot %s is older than %s, the target's last", ss.name, rec.Snap)
	case settle > 0 && time.Since(ss.btime) < settle:
		return nil, ss, fmt.Sprintf("snapshot %s is younger than %s: its rstats may still be propagating", ss.name, settle)
	}
	skew := c.opts.PruneSkew
	switch {
	case skew == 0:
		skew = DefaultPruneSkew
	case skew < 0:
		skew = 0
	}
	return &pruning{cutoff: last.Add(-skew), skipped: map[string]bool{}}, ss, ""
}

// snapSource reads the creation time of the snapshot src is in.
func (c *Copier) snapSource(src string, snap *snapshot) (*snapSource, error) {
	sd := c.snapDir()
	root := snap.root
	ss := &snapSource{snapshot: snap, dir: path.Dir(path.Dir(root)), name: path.Base(root)}
	if path.Base(path.Dir(root)) != sd {
		return nil, fmt.Errorf("snapshot root cephfs:%s is not DIR/%s/NAME", root, sd)
	}
	ss.rel = strings.TrimPrefix(strings.TrimPrefix(path.Clean(src), root), "/")
	v, err := c.fs.GetXattr(root, xattrSnapBtime)
	if err != nil {
		return nil, fmt.Errorf("reading the snapshot's creation time: %w", err)
	}
	ss.btimeRaw = string(v)
	if ss.btime, err = parseCephTime(ss.btimeRaw); err != nil {
		return nil, err
	}
	return ss, nil
}

// parseCephTime parses a time as CephFS's vxattrs give it: seconds, a
// dot and nine digits of nanoseconds.
func parseCephTime(s string) (time.Time, error) {
	sec, nsec, ok := strings.Cut(strings.TrimRight(s, "\x00"), ".")
	if !ok || len(nsec) != 9 {
		return time.Time{}, fmt.Errorf("time %q: expected SECONDS.NANOSECONDS (nine digits)", s)
	}
	si, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("time %q: %w", s, err)
	}
	ni, err := strconv.ParseInt(nsec, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("time %q: %w", s, err)
	}
	return time.Unix(si, ni), nil
}

// pruner decides, for the source directory src the walk lists, which of
// its subdirectories are skipped. The listing holds every subdirectory by
// the inode it stat'ed (cephfs.InodeRef.ReadDirHeld), so each child's
// rctime costs one getattr at the MDS: no lookup of its name, no walk of
// its path (libcephfs caches neither inside a snapshot). Nil, and pruning
// nothing, unless the copy prunes.
type pruner struct {
	t       *treeCopy
	src     string
	subdirs map[string]*cephfs.InodeRef
}

// list lists the source directory src for the walk: with the pruner of
// its subdirectories when the copy prunes, and then kept for the
// deletion pass (keptListings).
func (t *treeCopy) list(src string) ([]cephfs.Entry, *pruner, error) {
	if t.prune == nil {
		entries, err := t.c.fs.ReadDir(src)
		return entries, nil, err
	}
	d, err := t.c.fs.Ref(src)
	if err != nil {
		return nil, nil, err
	}
	defer d.Release()
	entries, subdirs, err := d.ReadDirHeld()
	if err != nil {
		return nil, nil, err
	}
	t.prune.kept.keepSource(src, entries)
	return entries, &pruner{t: t, src: src, subdirs: subdirs}, nil
}

func (p *pruner) release() {
	if p == nil {
		return
	}
	for _, d := range p.subdirs {
		d.Release()
	}
}

// unchanged reports whether the walk skips the subdirectory name: its
// rctime is older than the cut-off. An rctime that cannot be read
// prunes nothing.
func (p *pruner) unchanged(name string) bool {
	if p == nil {
		return false
	}
	child := p.subdirs[name]
	if child == nil {
		return false
	}
	v, err := child.GetXattr(xattrRctime)
	if err != nil {
		return false
	}
	rc, err := parseCephTime(string(v))
	if err != nil || !rc.Before(p.t.prune.cutoff) {
		return false
	}
	t := p.t
	t.c.repMu.Lock()
	t.prune.skipped[path.Join(p.src, name)] = true
	t.sum.Pruned++
	t.c.repMu.Unlock()
	return true
}

// pruned reports whether the walk skipped the source directory src.
func (t *treeCopy) pruned(src string) bool {
	if t.prune == nil {
		return false
	}
	t.c.repMu.Lock()
	defer t.c.repMu.Unlock()
	return t.prune.skipped[src]
}

// sawLinks notes a regular file of the tree with more than one link.
func (t *treeCopy) sawLinks(st cephfs.Stat) {
	if st.IsRegular() && st.Nlink > 1 {
		t.hardLinks.Store(true)
	}
}

// unrecord removes dst's record before a copy writes into it.
func (c *Copier) unrecord(dst string) error {
	err := c.fs.RemoveXattr(dst, xattrSynced)
	if err == nil || errors.Is(err, syscall.ENODATA) || store.ErrnoOf(err) == syscall.ENODATA || store.ErrnoOf(err) == syscall.ENOENT {
		return nil
	}
	return fmt.Errorf("removing the target's record of its last copy: %w", err)
}

// record writes dst's record once the copy of snapshot ss is complete.
func (c *Copier) record(dst string, ss *snapSource, links *atomic.Bool) error {
	b, err := json.Marshal(syncedRecord{Dir: ss.dir, Path: ss.rel, Snap: ss.name, ID: ss.id, Btime: ss.btimeRaw, HardLinks: links.Load()})
	if err != nil {
		return err
	}
	if err := c.fs.SetXattr(dst, xattrSynced, b); err != nil {
		return fmt.Errorf("recording the copied snapshot on the target: %w", err)
	}
	return nil
}

// changedSince reports whether the source file st changed (its ctime)
// since the snapshot the target holds, less the skew: such a file is
// copied without the quick check, which a file rewritten at its size
// with its mtime put back passes.
func (t *treeCopy) changedSince(st cephfs.Stat) bool {
	return t.prune != nil && !st.Ctime.Before(t.prune.cutoff)
}

// unchangedSince reports whether the source file st is unchanged (its
// ctime) since the snapshot the target holds, less the skew: a pruned
// subtree of one file. The target's copy of it was made from that
// snapshot, so the walk skips it as it skips an unchanged directory,
// without the quick check's requests for the target's file; with
// Verify, which asks for the data to be compared, it is checked.
func (t *treeCopy) unchangedSince(st cephfs.Stat) bool {
	return t.prune != nil && st.Ctime.Before(t.prune.cutoff) && !t.c.verifying()
}

// unchangedFile is the report of a file unchangedSince skips.
func unchangedFile(src, dst string, st cephfs.Stat) Report {
	return Report{Src: src, Dst: dst, Outcome: Unchanged, Size: st.Size,
		Reason: "unchanged since the snapshot the target holds (its ctime is older)"}
}

// copyChanged copies the file src, changed since the snapshot the
// target holds, whatever the target has.
func (t *treeCopy) copyChanged(ctx context.Context, src, dst string, st cephfs.Stat, placed map[string]bool) Report {
	var r Report
	if t.c.opts.DryRun {
		r = t.c.dryRunFile(src, dst, st)
	} else {
		r = t.c.copyFileAmong(ctx, src, dst, placed)
	}
	r.Size = st.Size
	return r
}

// SyncedFrom reads dst's record of the last complete copy of a snapshot
// into it (xattrSynced): the snapshotted directory and the copy's path
// below the snapshot. ok is false when dst has no record, or one that is
// not radoscp's.
func (c *Copier) SyncedFrom(dst string) (dir, rel string, ok bool) {
	v, err := c.fs.GetXattr(dst, xattrSynced)
	if err != nil {
		return "", "", false
	}
	var rec syncedRecord
	if err := json.Unmarshal(v, &rec); err != nil || rec.Dir == "" {
		return "", "", false
	}
	return rec.Dir, rec.Path, true
}
