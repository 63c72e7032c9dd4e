package subvolume

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ceph/go-ceph/cephfs/admin"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/store"
)

// Sync keeps a target subvolume in step with a source subvolume's
// snapshots, for a nightly job: each run copies one snapshot of the
// source (the newest, unless named) into the target, incrementally and
// with deletions (the copier's Options.Delete), and then snapshots the
// target under the source snapshot's name, so the target keeps one
// snapshot per run. The copy is fscopy's tree copy of the snapshot's
// contents into the target's root: a rerun after a failure or an
// interrupt copies what is left; a target whose last complete copy is
// of an older snapshot of the same source skips the subtrees unchanged
// since (fscopy's prune.go). A target that already has a snapshot of the
// snapshot's name is up to date: nothing is copied.
//
// This is not Clone: a clone makes a new subvolume of one snapshot and
// refuses an existing one; Sync updates one target over and over.

// SyncRequest is one sync: Volume's subvolume Subvolume (in Group) into
// subvolume Target (in TargetGroup, created with Subvolume's mode, owner
// and data pool, or Pool, when it does not exist).
type SyncRequest struct {
	Volume, Group, Subvolume  string
	Target, TargetGroup, Pool string
	// Snapshot is the source snapshot to copy; "" for the newest (by
	// creation time) of those whose names start with Prefix.
	Snapshot, Prefix string
	// Adopt makes an existing Target that is not recognisably
	// Subvolume's mirror (mirror.go) one: without it such a target is
	// refused.
	Adopt bool
	// DryRun writes nothing: the target is checked as a sync checks
	// it, an absent one is not created, and the copy is the copier's
	// dry run (its Options.DryRun must be set too).
	DryRun bool
}

// SyncResult is what a sync did.
type SyncResult struct {
	// Snapshot is the source snapshot copied, SnapshotPath its tree,
	// TargetPath the target's root.
	Snapshot, SnapshotPath, TargetPath string
	// Created is set when this run created the target subvolume;
	// UpToDate when the target had the snapshot already (nothing was
	// copied); Snapshotted when this run snapshotted the target. A dry
	// run sets Created when the target does not exist (it would be
	// created), and leaves TargetPath empty.
	// Adopted is set when this run made an existing target the
	// source's mirror (mirror.go): an empty one, or with Adopt.
	Created, UpToDate, Snapshotted, Adopted bool
	Summary                                 fscopy.Summary
	Elapsed                                 time.Duration
}

// Sync runs r; the Cloner's copier must have Options.Delete set.
func (c *Cloner) Sync(ctx context.Context, r SyncRequest) (SyncResult, error) {
	start := time.Now()
	var res SyncResult
	r.Group, r.TargetGroup = ungrouped(r.Group), ungrouped(r.TargetGroup)
	if r.Snapshot == "" {
		snap, err := c.newestSnapshot(r)
		if err != nil {
			return res, err
		}
		r.Snapshot = snap
	}
	res.Snapshot = r.Snapshot
	req := Request{Volume: r.Volume, Group: r.Group, Subvolume: r.Subvolume, Snapshot: r.Snapshot, Target: r.Target, TargetGroup: r.TargetGroup, Pool: r.Pool}
	src, err := c.source(req)
	if err != nil {
		return res, err
	}
	res.SnapshotPath = src.path
	p, err := c.admin.SubVolumePath(r.Volume, r.TargetGroup, r.Target)
	if err != nil {
		if err = mgrError("getpath of target subvolume "+r.Target, err); store.ErrnoOf(err) != syscall.ENOENT {
			return res, err
		}
		res.Created = true
		if r.DryRun {
			res.Elapsed = time.Since(start)
			return res, nil
		}
		if p, err = c.createTarget(req); err != nil {
			return res, err
		}
	}
	if res.Adopted, err = c.checkMirror(r, src, p, res.Created); err != nil {
		return res, err
	}
	res.TargetPath = p
	have, err := c.admin.ListSubVolumeSnapshots(r.Volume, r.TargetGroup, r.Target)
	if err != nil {
		return res, mgrError("snapshots of target subvolume "+r.Target, err)
	}
	if slices.Contains(have, r.Snapshot) {
		res.UpToDate, res.Elapsed = true, time.Since(start)
		return res, nil
	}
	res.Summary, err = c.copier.Copy(ctx, src.path+"/", p, true)
	res.Elapsed = time.Since(start)
	if err != nil || r.DryRun {
		return res, err
	}
	if err := c.admin.CreateSubVolumeSnapshot(r.Volume, r.TargetGroup, r.Target, r.Snapshot); err != nil {
		return res, fmt.Errorf("the copy of %s is complete, the target's snapshot failed (a rerun takes it): %w", src.name, mgrError("snapshot create "+r.Snapshot, err))
	}
	res.Snapshotted = true
	return res, nil
}

// newestSnapshot is the name of the newest snapshot of r's source whose
// name starts with r.Prefix.
func (c *Cloner) newestSnapshot(r SyncRequest) (string, error) {
	names, err := c.admin.ListSubVolumeSnapshots(r.Volume, r.Group, r.Subvolume)
	if err != nil {
		return "", usageIfMissing(mgrError("snapshots of subvolume "+r.Subvolume, err))
	}
	var newest string
	var at time.Time
	for _, n := range names {
		if !strings.HasPrefix(n, r.Prefix) {
			continue
		}
		info, err := c.admin.SubVolumeSnapshotInfo(r.Volume, r.Group, r.Subvolume, n)
		if err != nil {
			return "", mgrError("snapshot info "+n, err)
		}
		if newest == "" || info.CreatedAt.After(at) {
			newest, at = n, info.CreatedAt.Time
		}
	}
	if newest == "" {
		return "", fmt.Errorf("%w: subvolume %s%s of volume %s has no snapshot named %s*; nothing was written",
			ErrUsage, r.Subvolume, inGroup(r.Group), r.Volume, r.Prefix)
	}
	return newest, nil
}

// createTarget creates r's target subvolume with the source's mode,
// owner and data pool (or r.Pool); it returns its root.
func (c *Cloner) createTarget(r Request) (string, error) {
	info, err := c.admin.SubVolumeInfo(r.Volume, r.Group, r.Subvolume)
	if err != nil {
		return "", mgrError("info of subvolume "+r.Subvolume, err)
	}
	o := &admin.SubVolumeOptions{Mode: info.Mode & 0o7777, Uid: info.Uid, Gid: info.Gid, PoolLayout: info.DataPool}
	if r.Pool != "" {
		o.PoolLayout = r.Pool
	}
	if err := c.admin.CreateSubVolume(r.Volume, r.TargetGroup, r.Target, o); err != nil {
		return "", mgrError("create subvolume "+r.Target, err)
	}
	p, err := c.admin.SubVolumePath(r.Volume, r.TargetGroup, r.Target)
	return p, mgrError("getpath of target subvolume "+r.Target, err)
}
