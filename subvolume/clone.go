package subvolume

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/ceph/go-ceph/cephfs/admin"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/shard"
	"github.com/radoscp/radoscp/store"
)

// ErrUsage marks a request refused before anything was written.
var ErrUsage = fscopy.ErrUsage

// Request is one clone: snapshot Snapshot of subvolume Subvolume (in
// group Group, "" for none) of volume Volume, into the new subvolume
// Target in TargetGroup, its data in Pool ("" for the source's).
type Request struct {
	Volume, Group, Subvolume, Snapshot string
	Target, TargetGroup, Pool          string
	// Resume continues an interrupted clone of the same snapshot into
	// Target; without it such a target is refused.
	Resume bool
	// Sync makes the data durable (a sync of the file system) before
	// the clone is declared complete.
	Sync bool
	// Shard makes this run one worker of a sharded clone, or its final
	// pass (shard.go); the copier's Options.Shard must be the same.
	Shard shard.Shard
}

// State is how a clone ended.
type State string

const (
	Complete    State = "complete"    // the target is a complete clone
	Interrupted State = "interrupted" // stopped; Resume continues it
	Failed      State = "failed"      // see Result.TargetRemoved
	Refused     State = "refused"     // nothing was written
	// ShareCopied: a sharded clone's worker copied its share; the
	// final pass completes the clone.
	ShareCopied State = "share-copied"
)

// Result is what a clone did, for its summary.
type Result struct {
	State State
	// SnapshotPath is the snapshot's tree, TargetPath the target's root.
	SnapshotPath, TargetPath string
	// Created is set when this run created the target, Resumed when it
	// continued an interrupted clone.
	Created, Resumed bool
	// TargetRemoved is set when a failed clone's target was removed;
	// a failed clone whose target could not be removed says so in its
	// error.
	TargetRemoved bool
	Summary       fscopy.Summary
	Elapsed       time.Duration
}

// Mark xattrs on the target's root while a clone runs: which snapshot it
// is a clone of, and how far it got.
const (
	xattrClone = "user.radoscp.clone"
	xattrState = "user.radoscp.clone.state"
	stateCopy  = "copying"
	stateMove  = "moving"
)

// stagingDir is the directory inside the target the tree is copied to.
const stagingDir = fscopy.StagingPrefix + "clone"

// Cloner clones over one connection and mount.
type Cloner struct {
	admin  *admin.FSAdmin
	conn   *rados.Conn
	fs     *cephfs.FS
	copier *fscopy.Copier
}

// New returns a cloner that copies with copier (whose options apply:
// files at once, no-preserve, verify, throttling, and Pool, which must be
// the request's).
func New(conn *rados.Conn, fs *cephfs.FS, copier *fscopy.Copier) *Cloner {
	return &Cloner{admin: admin.NewFromConn(conn.Raw()), conn: conn, fs: fs, copier: copier}
}

// Clone clones r. A request that cannot be done (no such subvolume or
// snapshot, a target that exists and is not an interrupted clone of this
// snapshot) fails with ErrUsage before anything is written. A clone that
// fails removes its target (Result.TargetRemoved), or says that it could
// not; an interrupted one (ctx) leaves it for Resume.
func (c *Cloner) Clone(ctx context.Context, r Request) (res Result, err error) {
	start := time.Now()
	defer func() { res.Elapsed = time.Since(start) }()
	res.State = Refused
	r = r.withDefaultGroup()
	src, err := c.source(r)
	if err != nil {
		return res, err
	}
	res.SnapshotPath = src.path
	target, resumed, err := c.target(r, src)
	if err != nil {
		return res, err
	}
	res.TargetPath, res.Resumed, res.Created = target, resumed, !resumed
	err = c.run(ctx, r, src, target, &res)
	switch {
	case err == nil && r.Shard.Worker():
		res.State = ShareCopied
		return res, nil
	case err == nil:
		res.State = Complete
		return res, nil
	case errors.Is(err, fscopy.ErrFindings):
		res.State = Complete // every path in place; the findings are the error
		return res, err
	case ctx.Err() != nil:
		res.State = Interrupted
		return res, stoppedError{fmt.Sprintf("clone of %s interrupted; the target subvolume %s holds the clone so far (not visible to its users): rerun with --resume to continue it, or remove it (ceph fs subvolume rm %s %s%s)",
			src, r.Target, r.Volume, r.Target, groupFlag(r.TargetGroup)), err}
	}
	res.State = Failed
	if r.Shard.On() {
		return res, fmt.Errorf("clone of %s failed: %w; the target subvolume %s stays for the other workers and the final pass: run this one again", src, err, r.Target)
	}
	if rerr := c.admin.RemoveSubVolume(r.Volume, r.TargetGroup, r.Target); rerr != nil {
		return res, fmt.Errorf("clone of %s failed: %w; the target subvolume %s could not be removed (%w): it holds an incomplete clone in %s, remove it with ceph fs subvolume rm %s %s%s",
			src, err, r.Target, mgrError("remove subvolume "+r.Target, rerr), path.Join(target, stagingDir), r.Volume, r.Target, groupFlag(r.TargetGroup))
	}
	res.TargetRemoved = true
	return res, fmt.Errorf("clone of %s failed: %w; the target subvolume %s was removed", src, err, r.Target)
}

// run copies the snapshot's tree into target's staging directory, moves
// its entries into place and finishes the root, continuing from the state
// the mark records.
func (c *Cloner) run(ctx context.Context, r Request, src source, target string, res *Result) error {
	staging := path.Join(target, stagingDir)
	state, err := c.fs.GetXattr(target, xattrState)
	if err != nil {
		return err
	}
	var findings error
	if string(state) == stateCopy {
		sum, err := c.copier.Copy(ctx, src.path, staging, true)
		res.Summary = sum
		if r.Shard.Worker() {
			return err // the final pass moves the tree in
		}
		if errors.Is(err, fscopy.ErrFindings) {
			findings, err = err, nil
		}
		if err != nil {
			return err
		}
		if err := c.fs.SetXattr(target, xattrState, []byte(stateMove)); err != nil {
			return err
		}
	}
	if err := c.moveIn(staging, target); err != nil {
		return err
	}
	if err := c.copier.FinishDir(src.path, target); err != nil {
		return err
	}
	if r.Sync {
		if err := c.fs.SyncFS(); err != nil {
			return err
		}
	}
	// The mark goes last: it changes the root's ctime, not its mtime.
	if err := c.fs.RemoveXattr(target, xattrState); err != nil {
		return err
	}
	if err := c.fs.RemoveXattr(target, xattrClone); err != nil {
		return err
	}
	return findings
}

// moveIn renames every entry of the complete staging directory into
// target and removes it. Entries moved by an interrupted run are in
// target already; the staging directory is gone once all were moved.
func (c *Cloner) moveIn(staging, target string) error {
	entries, err := c.fs.ReadDir(staging)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	// The staging directory got the snapshot root's quotas; a rename out
	// of a quota's tree fails (EXDEV), so they go first. The target's
	// root gets them at the end.
	for _, q := range []string{"ceph.quota.max_bytes", "ceph.quota.max_files"} {
		if v, err := c.fs.GetXattr(staging, q); err == nil && string(v) != "0" {
			if err := c.fs.SetXattr(staging, q, []byte("0")); err != nil {
				return err
			}
		}
	}
	for _, e := range entries {
		if err := c.fs.Rename(path.Join(staging, e.Name), path.Join(target, e.Name)); err != nil {
			return err
		}
	}
	return c.fs.Rmdir(staging)
}

// source is the snapshot to clone: its tree, and the mark a clone of it
// carries.
type source struct {
	name, path, mark string
}

func (s source) String() string { return s.name }

// source finds r's snapshot and its tree.
func (c *Cloner) source(r Request) (source, error) {
	s := source{name: fmt.Sprintf("snapshot %s of subvolume %s%s (volume %s)", r.Snapshot, r.Subvolume, inGroup(r.Group), r.Volume)}
	for _, n := range []struct{ what, v string }{{"volume", r.Volume}, {"subvolume", r.Subvolume}, {"snapshot", r.Snapshot}, {"target", r.Target}} {
		if n.v == "" || strings.ContainsAny(n.v, "/") || n.v == "." || n.v == ".." {
			return s, fmt.Errorf("%w: %s %q: expected a name, without '/'", ErrUsage, n.what, n.v)
		}
	}
	if r.Target == r.Subvolume && r.TargetGroup == r.Group {
		return s, fmt.Errorf("%w: the target %s is the source subvolume", ErrUsage, r.Target)
	}
	if _, err := c.admin.SubVolumeSnapshotInfo(r.Volume, r.Group, r.Subvolume, r.Snapshot); err != nil {
		return s, usageIfMissing(mgrError("snapshot info "+s.name, err))
	}
	data, err := c.admin.SubVolumePath(r.Volume, r.Group, r.Subvolume)
	if err != nil {
		return s, usageIfMissing(mgrError("getpath of subvolume "+r.Subvolume, err))
	}
	snapdir := cephfs.SnapDir(c.conn)
	// Subvolumes of version 2 are snapshotted at the directory above
	// their data (the snapshot holds the data as UUID), version 1 at the
	// data directory itself.
	candidates := []string{
		path.Join(path.Dir(data), snapdir, r.Snapshot, path.Base(data)),
		path.Join(data, snapdir, r.Snapshot),
	}
	for _, p := range candidates {
		st, err := c.fs.Lstat(p)
		if err != nil || !st.IsDir() {
			continue
		}
		s.path = p
		s.mark = fmt.Sprintf("%s/%s/%s@%s snapid=%d", r.Volume, groupName(r.Group), r.Subvolume, r.Snapshot, st.Snap)
		return s, nil
	}
	return s, fmt.Errorf("%w: %s: its tree is at none of cephfs:%s", ErrUsage, s, strings.Join(candidates, ", cephfs:"))
}

// target creates r's target subvolume, or with Resume finds the one an
// interrupted clone of src left. It returns the target's root.
func (c *Cloner) target(r Request, src source) (string, bool, error) {
	if r.TargetGroup != "" {
		if _, err := c.admin.SubVolumeGroupPath(r.Volume, r.TargetGroup); err != nil {
			return "", false, usageIfMissing(mgrError("target group "+r.TargetGroup, err))
		}
	}
	p, err := c.admin.SubVolumePath(r.Volume, r.TargetGroup, r.Target)
	if err == nil && r.Shard.On() {
		return c.shardTarget(r, src, p)
	}
	if err == nil {
		mark, merr := c.fs.GetXattr(p, xattrClone)
		switch {
		case merr == nil && string(mark) == src.mark && r.Resume:
			return p, true, nil
		case merr == nil && string(mark) == src.mark:
			return "", false, fmt.Errorf("%w: target subvolume %s%s is an interrupted clone of %s: give --resume to continue it, or remove it (ceph fs subvolume rm %s %s%s); nothing was written",
				ErrUsage, r.Target, inGroup(r.TargetGroup), src, r.Volume, r.Target, groupFlag(r.TargetGroup))
		case merr == nil:
			return "", false, fmt.Errorf("%w: target subvolume %s%s is an interrupted clone of another snapshot (%s); nothing was written",
				ErrUsage, r.Target, inGroup(r.TargetGroup), mark)
		}
		return "", false, fmt.Errorf("%w: target subvolume %s%s exists (at cephfs:%s); nothing was written", ErrUsage, r.Target, inGroup(r.TargetGroup), p)
	}
	if err := mgrError("getpath of target subvolume "+r.Target, err); store.ErrnoOf(err) != syscall.ENOENT {
		return "", false, err
	}
	if r.Shard.Finish {
		return "", false, fmt.Errorf("%w: the final pass completes a sharded clone, and target subvolume %s%s does not exist: no worker has run; nothing was written",
			ErrUsage, r.Target, inGroup(r.TargetGroup))
	}
	info, err := c.admin.SubVolumeInfo(r.Volume, r.Group, r.Subvolume)
	if err != nil {
		return "", false, mgrError("info of subvolume "+r.Subvolume, err)
	}
	// The source's mode and owner, which the mgr also gives the
	// directory above the data (version 2); the data's root is then
	// closed (0700, root) until the clone is complete.
	o := &admin.SubVolumeOptions{Mode: info.Mode & 0o7777, Uid: info.Uid, Gid: info.Gid, PoolLayout: info.DataPool}
	if r.Pool != "" {
		o.PoolLayout = r.Pool
	}
	// No size: the snapshot root's quotas (which a subvolume's size is)
	// are set when the tree is in place, so nothing counts against them
	// while the clone runs (fscopy's FinishDir).
	if err := c.admin.CreateSubVolume(r.Volume, r.TargetGroup, r.Target, o); err != nil {
		return "", false, mgrError("create subvolume "+r.Target, err)
	}
	if p, err = c.admin.SubVolumePath(r.Volume, r.TargetGroup, r.Target); err == nil {
		err = c.close(p)
	}
	if err == nil {
		err = c.fs.SetXattr(p, xattrState, []byte(stateCopy))
	}
	if err == nil {
		err = c.fs.SetXattr(p, xattrClone, []byte(src.mark))
	}
	if err != nil {
		err = mgrError("mark target subvolume "+r.Target, err)
		if r.Shard.On() {
			return "", false, fmt.Errorf("%w; the target subvolume %s is left for the other workers", err, r.Target)
		}
		if rerr := c.admin.RemoveSubVolume(r.Volume, r.TargetGroup, r.Target); rerr != nil {
			return "", false, fmt.Errorf("%w; the new target subvolume %s could not be removed (%w): remove it with ceph fs subvolume rm %s %s%s",
				err, r.Target, mgrError("remove", rerr), r.Volume, r.Target, groupFlag(r.TargetGroup))
		}
		return "", false, fmt.Errorf("%w; the new target subvolume %s was removed", err, r.Target)
	}
	return p, false, nil
}

// close makes the new target's root mode 0700, owned by root, so that
// none of its users sees the clone before it is complete.
func (c *Cloner) close(root string) error {
	st, err := c.fs.Lstat(root)
	if err != nil {
		return err
	}
	return c.fs.SetAttrs(root, cephfs.Attrs{Mode: 0o700, Atime: st.Atime, Mtime: st.Mtime}, false)
}

// mgrError keeps the errno of a failed mgr command and its status text
// ("subvolume 'x' does not exist").
func mgrError(op string, err error) error {
	if err == nil {
		return nil
	}
	var st interface{ Status() string }
	e := rados.ErrnoError(op, "", err)
	if errors.As(err, &st) && st.Status() != "" {
		return fmt.Errorf("%w (%s)", e, st.Status())
	}
	return e
}

// usageIfMissing marks an ENOENT from the mgr as invalid input.
func usageIfMissing(err error) error {
	if store.ErrnoOf(err) == syscall.ENOENT {
		return fmt.Errorf("%w: %w; nothing was written", ErrUsage, err)
	}
	return err
}

// defaultGroup is Ceph's name for the group of the subvolumes made
// without one (their paths are /volumes/_nogroup/...); the mgr refuses it
// as a group name (EPERM, "an internal group"), so a request naming it
// means no group.
const defaultGroup = "_nogroup"

func groupName(g string) string {
	if g == "" {
		return defaultGroup
	}
	return g
}

// ungrouped is g as the mgr takes it: defaultGroup is no group.
func ungrouped(g string) string {
	if g == defaultGroup {
		return ""
	}
	return g
}

// withDefaultGroup is r with its groups as the mgr takes them.
func (r Request) withDefaultGroup() Request {
	r.Group, r.TargetGroup = ungrouped(r.Group), ungrouped(r.TargetGroup)
	return r
}

func inGroup(g string) string {
	if g == "" {
		return ""
	}
	return " in group " + g
}

func groupFlag(g string) string {
	if g == "" {
		return ""
	}
	return " --group_name " + g
}
