package fscopy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/cephfs"
)

// ErrUsage marks a request refused before anything was written.
var ErrUsage = errors.New("invalid request")

// Copy copies src to dst like cp -a: if dst is an existing directory, the
// copy is dst/base(src), otherwise dst itself. A src ending in "/" names
// the directory's contents, as in rsync: they are copied into dst itself,
// made if absent, so that a rerun lands where the first run did
// (contents.go). Directories need recursive. Summary.Target is the top
// destination.
// Regular files are copied Options.Files at a time (more when small, see
// fileWeight), each through its
// staging file; symlinks are re-created; hard links within the tree stay
// hard links, the data copied once (links.go); other file types are
// reported and skipped. A failed file does not stop the others; the summary counts
// them. Directory times are set last, after their contents.
func (c *Copier) Copy(ctx context.Context, src, dst string, recursive bool) (Summary, error) {
	sum, err := c.copy(ctx, src, dst, recursive)
	sum.PeakInFlight = c.engine.PeakInFlight()
	return sum, err
}

func (c *Copier) copy(ctx context.Context, src, dst string, recursive bool) (Summary, error) {
	var sum Summary
	src, contents := splitContents(src)
	snap, err := c.checkPaths(src, dst)
	if err != nil {
		return sum, err
	}
	sst, err := c.fs.Lstat(src)
	if err != nil {
		return sum, fmt.Errorf("%w: source: %w", ErrUsage, err)
	}
	if snap != nil && sst.IsDir() {
		release, err := c.holdSnapshot(snap)
		if err != nil {
			return sum, err
		}
		defer release()
	}
	if err := c.checkDelete(src, sst, recursive); err != nil {
		return sum, err
	}
	if dst, err = c.target(src, dst, sst.IsDir(), contents); err != nil {
		return sum, err
	}
	sum.Target = dst
	if err := c.checkDestinationLive(dst); err != nil {
		return sum, err
	}
	if sst.IsDir() {
		if !recursive {
			return sum, fmt.Errorf("%w: cephfs:%s is a directory: give -r to copy it", ErrUsage, src)
		}
		if err := c.checkOutside(src, dst, sst); err != nil {
			return sum, err
		}
		if err := c.checkSourceOutside(src, dst); err != nil {
			return sum, err
		}
	} else if dst == src {
		return sum, fmt.Errorf("%w: cephfs:%s and cephfs:%s are the same file", ErrUsage, src, dst)
	} else if c.opts.NoClobber {
		if _, err := c.fs.Lstat(dst); err == nil {
			return sum, fmt.Errorf("%w: cephfs:%s exists, and no-clobber leaves existing destinations alone", ErrUsage, dst)
		}
	}

	if err := c.checkShard(src, dst, sst.IsDir() && recursive); err != nil {
		return sum, err
	}
	confined := c.writtenDirs(dst)
	if sst.IsDir() && sst.Snap == 0 {
		// A live source's directories can be swapped too: its listings
		// and opens follow no symlink below it either (a snapshot's
		// cannot change).
		confined = append(confined, src)
	}
	release, err := c.confine(confined...)
	if err != nil {
		return sum, err
	}
	defer release()
	var prune *pruning
	var ss *snapSource // the snapshot the target records when the copy is complete (prune.go)
	if sst.IsDir() && recursive {
		prune, ss, sum.ScanReason = c.incremental(src, dst, snap)
		sum.Scan = ScanFull
		if prune != nil {
			sum.Scan = ScanRctime
		}
	}
	marked := false
	var ft *freshTree // a new target, built under its staging name (freshtree.go)
	if sst.IsDir() && recursive && !c.opts.DryRun {
		if ft, err = c.freshTarget(src, dst); err != nil {
			return sum, err
		}
		defer ft.release()
	}
	if sst.IsDir() && !c.opts.DryRun && ft == nil {
		if marked, err = c.markTarget(src, dst); err != nil {
			return sum, err
		}
	}
	// A new target's staging directory is locked already (freshTarget);
	// an existing one is locked here, with the same owner record.
	if sst.IsDir() && !c.opts.DryRun && !c.opts.Shard.On() && ft == nil {
		l, err := c.lockTree(dst)
		if err != nil {
			return sum, err
		}
		defer l.release()
	}
	// The record of the last complete copy goes once this copy holds
	// the target (a copy refused for another's lock changes nothing),
	// and before it writes: an interrupted copy leaves no record.
	if sst.IsDir() && recursive && !c.opts.DryRun {
		if err := c.unrecord(dst); err != nil {
			return sum, err
		}
	}
	root := dst
	if ft != nil {
		root = ft.staging
		if !ft.hidden {
			// Made by this copy (or its workers): no quota until the
			// tree is complete (dirattrs.go), so none is read.
			c.madeDir(root)
		}
	}
	t := &treeCopy{c: c, sum: &sum, root: path.Clean(src), inFlight: newInFlight(c.opts.Files), sh: newShardWalk(c.opts.Shard, src, root), fresh: ft, prune: prune}
	t.copy(ctx, src, root, sst, nil)
	t.g.Wait()
	t.recheck(ctx)
	if ft != nil {
		t.recheckSources(ctx)
	}
	t.settled(ctx)
	t.pruneStaging(ctx, src, root)             // a resumed new target's staging tree: what the source lacks (stalestaging.go)
	deleted := t.mirrorDeletes(ctx, src, root) // before the directories' times; a new target's, in its staging tree
	// A worker of a sharded copy leaves the mark to the final pass.
	if marked && sum.Failed == 0 && ctx.Err() == nil && !t.sh.worker() {
		if err := c.fs.RemoveXattr(dst, xattrTree); err != nil {
			t.record(Report{Src: src, Dst: dst, Outcome: Failed, Err: err})
		}
	}
	for i := len(t.dirs) - 1; i >= 0; i-- {
		d := t.dirs[i]
		if err := c.setDirQuota(d.dst, d.attrs); err != nil {
			t.record(Report{Src: d.src, Dst: d.dst, Outcome: Failed, Err: err})
			continue
		}
		if err := c.setDirTimes(d.dst, d.st); err != nil {
			t.record(Report{Src: d.src, Dst: d.dst, Outcome: Failed, Err: err})
		}
	}
	if ft != nil && sum.Failed == 0 && ctx.Err() == nil {
		if err := c.publish(ft); err != nil {
			t.record(Report{Src: src, Dst: dst, Outcome: Failed, Err: err})
		}
	}
	if err := ctx.Err(); err != nil {
		return sum, err
	}
	if !sst.IsDir() && t.lastErr != nil {
		if errors.Is(t.lastErr, radoscp.ErrInvalid) || errors.Is(t.lastErr, errClobber) {
			return sum, fmt.Errorf("%w: %w", ErrUsage, t.lastErr)
		}
		return sum, t.lastErr
	}
	if qe := (*QuotaError)(nil); errors.As(t.quotaErr, &qe) {
		return sum, c.noDeletes(deleted, sum.Deleted, fmt.Errorf("the copy stopped at the first path a quota refused (paths failed: %d; the rest were not copied): %w", sum.Failed, qe))
	}
	if t.quotaErr != nil {
		return sum, c.noDeletes(deleted, sum.Deleted, fmt.Errorf("the copy stopped at the first file the data pool refused (paths failed: %d; files in flight or queued, not copied: %d; the rest not walked)%s: %w",
			sum.Failed, t.notStarted, ft.kept(), t.quotaErr))
	}
	if sum.Failed > 0 && ft != nil {
		return sum, fmt.Errorf("%d of %d paths failed%s", sum.Failed, sum.Files+sum.Symlinks+sum.HardLinks+sum.Dirs+sum.Failed, ft.kept())
	}
	if sum.Failed > 0 {
		return sum, c.noDeletes(deleted, sum.Deleted, fmt.Errorf("%d of %d paths failed", sum.Failed, sum.Files+sum.Symlinks+sum.HardLinks+sum.Dirs+sum.Failed))
	}
	if err := errors.Join(sum.findings(), sum.deletesLeftErr(c.opts.MaxDelete)); err != nil {
		return sum, err
	}
	if ss != nil && c.opts.Delete && c.opts.Filter == nil && !c.opts.Shard.On() && !c.opts.DryRun {
		return sum, c.record(dst, ss, &t.hardLinks)
	}
	return sum, nil
}

// errQuotaStop is a file of a tree copy not started because a quota
// stopped the copy.
var errQuotaStop = errors.New("not copied: a quota stopped the copy")

// xattrTree marks a directory that a tree copy created as its target,
// with the source's path, until the whole tree is copied: a rerun of the
// same copy (with or without --resume) continues into it instead of
// taking it for an existing directory to copy into.
const xattrTree = "user.radoscp.tree"

// target resolves cp's rule for dst, or rsync's for a directory's
// contents (src given with a trailing "/": dst itself).
func (c *Copier) target(src, dst string, dir, contents bool) (string, error) {
	dst = path.Clean(dst)
	if contents && !dir {
		return "", fmt.Errorf("%w: source cephfs:%s/ names a directory's contents, but cephfs:%s is not a directory", ErrUsage, src, src)
	}
	st, err := c.fs.Stat(dst)
	if err == nil && st.IsDir() && contents {
		return dst, nil
	}
	if err == nil && st.IsDir() && dir {
		if v, xerr := c.fs.GetXattr(dst, xattrTree); xerr == nil && string(v) == src {
			return dst, nil // an interrupted copy of src made it
		}
	}
	switch {
	case err == nil && st.IsDir():
		base := path.Base(src)
		if base == "/" {
			return dst, nil
		}
		return path.Join(dst, base), nil
	case err == nil || errors.Is(err, fs.ErrNotExist):
		parent := path.Dir(dst)
		pst, perr := c.fs.Stat(parent)
		if perr != nil {
			return "", fmt.Errorf("%w: destination's directory: %w", ErrUsage, perr)
		}
		if !pst.IsDir() {
			return "", fmt.Errorf("%w: destination's parent cephfs:%s is a %s, not a directory", ErrUsage, parent, pst.Type())
		}
		return dst, nil
	default:
		return "", err
	}
}

// markTarget creates dst, the target of a tree copy of src, when it does
// not exist, and marks it (xattrTree) as this copy's: it is made with
// the mark (mkdirMarked), so that it never exists without it. It reports
// whether dst carries the mark, to be removed when the copy is complete.
func (c *Copier) markTarget(src, dst string) (bool, error) {
	if v, err := c.fs.GetXattr(dst, xattrTree); err == nil {
		return string(v) == src, nil
	}
	if _, err := c.fs.Lstat(dst); err == nil {
		return false, nil // copying into an existing directory
	}
	err := c.mkdirMarked(src, dst)
	if errors.Is(err, fs.ErrExist) {
		// Another run made it meanwhile: a worker of the same sharded
		// copy (marked alike), or not.
		v, xerr := c.fs.GetXattr(dst, xattrTree)
		return xerr == nil && string(v) == src, nil
	}
	return err == nil, err
}

type dirTimes struct {
	src, dst string
	st       cephfs.Stat
	attrs    dirAttrs // quotas are set with the times (dirattrs.go)
}

// treeCopy is one Copy's state: the file workers and the directories whose
// times are set at the end.
type treeCopy struct {
	c    *Copier
	root string // the source root, which the filter's paths are relative to
	g    errgroup.Group
	// inFlight is the budget of files in flight (see goFile).
	inFlight *semaphore.Weighted
	sum      *Summary
	dirs     []dirTimes
	links    links
	mlinks   migrateLinks // a migrate's link groups (migratelinks.go)
	// listedDirs are the source directories the walk listed (recheck.go).
	listedDirs []listedDir
	sh         *shardWalk  // nil unless sharded
	fresh      *freshTree  // nil unless the target is new (freshtree.go)
	prune      *pruning    // nil unless unchanged subtrees are skipped (prune.go)
	hardLinks  atomic.Bool // a regular file with more than one link was met
	dels       *deletions  // the deletion pass (replace.go)
	lastErr    error
	// quotaErr is the first refusal by a directory quota or a full
	// pool (stopsTree): the copy stops there, as cp -a and rsync do
	// (under repMu). notStarted counts the files then in flight or
	// queued, not copied.
	quotaErr   error
	notStarted int
}

// stopped reports whether a quota stopped the copy: nothing more is
// started.
func (t *treeCopy) stopped() bool {
	t.c.repMu.Lock()
	defer t.c.repMu.Unlock()
	return t.quotaErr != nil
}

// settled waits for the copied files' settling and records its failures.
func (t *treeCopy) settled(ctx context.Context) {
	errs, reset := t.c.settled(ctx)
	for _, r := range errs {
		t.record(r)
	}
	t.sum.TimesReset += reset
}

func (t *treeCopy) record(r Report) {
	t.sh.annotate(&r)
	markInterrupted(&r)
	r.Dst = t.fresh.final(r.Dst)
	t.c.repMu.Lock()
	if t.quotaErr != nil && stopsTree(r.Err) {
		// Refused after the copy stopped, nothing of it copied: one
		// of the paths not copied, as those never started.
		t.notStarted++
		t.c.repMu.Unlock()
		return
	}
	t.sum.add(r)
	if r.Err != nil {
		t.lastErr = r.Err
	}
	if t.quotaErr == nil && stopsTree(r.Err) {
		t.quotaErr = r.Err
	}
	t.c.repMu.Unlock()
	t.c.emit(r)
}

// copy copies src to dst; placed names the entries the tree puts in dst's
// directory, which no staging name of dst takes (see openStaging).
func (t *treeCopy) copy(ctx context.Context, src, dst string, st cephfs.Stat, placed map[string]bool) {
	if ctx.Err() != nil || t.stopped() {
		return
	}
	if !st.IsDir() && t.sh != nil && t.skip(src, dst, st) {
		return
	}
	t.sawLinks(st)
	switch {
	case st.IsRegular():
		if t.c.opts.NoClobber {
			if _, err := t.c.fs.Lstat(dst); err == nil {
				r, same, _ := t.c.sameAtDestination(ctx, src, dst, st)
				if !same {
					r = Report{Src: src, Dst: dst, Outcome: Skipped, Reason: "exists; no-clobber leaves it alone"}
				}
				r.Size = st.Size
				if g, ok := GroupOf(st); ok {
					if leader, first := t.links.join(g, dst); first {
						leader.finish(true) // later links link to the file kept
					}
				}
				t.record(r) // an identical file is unchanged, not skipped
				return
			}
		}
		leader, follow := t.linkOf(ctx, src, dst, st, placed)
		if follow {
			return
		}
		t.goFile(ctx, st.Size, func() {
			r := Report{Src: src, Dst: dst, Outcome: Failed, Err: ctx.Err()}
			if r.Err == nil && t.stopped() {
				r.Err = errQuotaStop // not started: reported by the quota's error
				t.c.repMu.Lock()
				t.notStarted++
				t.c.repMu.Unlock()
			}
			switch {
			case r.Err != nil:
			case t.fresh != nil:
				r = t.fresh.copy(ctx, t.c, src, dst, st)
				t.record(r)
			case t.changedSince(st):
				r = t.copyChanged(ctx, src, dst, st, placed)
				t.record(r)
			case t.unchangedSince(st):
				r = unchangedFile(src, dst, st)
				t.record(r)
			default:
				r = t.c.copyUnlessSame(ctx, src, dst, st, placed)
				t.record(r)
			}
			if leader != nil {
				leader.finish(r.Err == nil || errors.Is(r.Err, errClobber)) // in place, or kept by no-clobber
			}
		})
	case st.IsSymlink():
		t.record(t.symlink(src, dst, st))
	case st.IsSpecial():
		if t.c.opts.NoClobber {
			if _, err := t.c.fs.Lstat(dst); err == nil {
				t.record(Report{Src: src, Dst: dst, Outcome: Skipped, Reason: "exists; no-clobber leaves it alone"})
				return
			}
		}
		t.record(t.special(src, dst, st))
	case st.IsDir():
		if !t.sh.worker() { // a worker makes directories as its files need them (ensureDir)
			r := t.mkdir(src, dst, st)
			t.record(r)
			if r.Err != nil {
				return
			}
		}
		t.listed(src, dst)
		entries, pr, err := t.list(src)
		if err != nil {
			t.record(Report{Src: src, Dst: dst, Outcome: Failed, Err: err})
			return
		}
		defer pr.release()
		t.c.hooks.afterList(src)
		t.extras(src, dst, entries)
		t.replaceTypes(ctx, src, dst, entries)
		placed := map[string]bool{}
		for _, e := range entries {
			placed[e.Name] = true
		}
		for _, e := range entries {
			p := path.Join(src, e.Name)
			if t.c.isStaging(src, e) || t.excluded(p, e.Stat) {
				continue
			}
			if e.Stat.IsDir() && pr.unchanged(e.Name) {
				continue // unchanged since the snapshot the target holds (prune.go)
			}
			t.copy(ctx, p, path.Join(dst, e.Name), t.freshStat(p, e.Stat), placed)
		}
	default:
		t.record(Report{Src: src, Dst: dst, Outcome: Skipped, Reason: st.Type() + ": not copied"})
	}
}

// freshStat is a listed regular file's stat taken afresh, for every
// decision the walk (of a tree copy or a migrate) makes about it (whether
// it is unchanged at the destination, a hard link, a sharded worker's,
// its weight). A listing's
// stat can be older than what a writing client has done: libcephfs takes
// the first entry of each directory fragment it fetches from the MDS's
// reply, whose size, times and link count the MDS gives as it has them,
// with no lock taken (seen on Ceph 16.2: size 0 and the creation mtime
// for a file another client had written and closed; nlink 1 for a file
// with 3 links), while a stat makes the MDS take its locks and the writer
// flush them. The stat costs nothing more at the MDS: the copy's own
// stats need the same lookup. On an error (src removed since the
// listing) the listed stat is kept; the copy reports the error.
func (t *treeCopy) freshStat(src string, listed cephfs.Stat) cephfs.Stat {
	st, _ := t.restat(src, listed)
	return st
}

// restat is freshStat with the stat's error (src removed since the
// listing: fs.ErrNotExist).
func (t *treeCopy) restat(src string, listed cephfs.Stat) (cephfs.Stat, error) {
	if !listed.IsRegular() {
		return listed, nil
	}
	st, err := t.c.fs.Lstat(src)
	t.c.hooks.afterWalkStat(src)
	if err != nil {
		return listed, err
	}
	return st, nil
}

// makeDir makes directory dst (mode 0700, its entry taken from the
// quotas above it), or takes the directory there; anything else there is
// an error. Where one may be there (mayExist: a new target's staging
// root, any directory of an interrupted or existing tree, a sharded
// worker's) it is looked up first: a mkdir refused with EEXIST still
// takes the parent's locks at the MDS, and so revokes the caps other
// clients (a sharded copy's workers) hold on it, sending each of their
// files in flight under it to look its path up again.
func (t *treeCopy) makeDir(dst string, mayExist bool) error {
	there := func() error {
		if have, err := t.c.fs.Lstat(dst); err != nil || !have.IsDir() {
			return fmt.Errorf("cephfs:%s exists and is not a directory", dst)
		}
		return nil
	}
	if mayExist {
		if _, err := t.c.fs.Lstat(dst); err == nil {
			return there()
		}
	}
	hold, err := t.c.reserve(path.Dir(dst), 0, 1)
	if err != nil {
		return err
	}
	if err = t.c.fs.Mkdir(dst, 0o700); err != nil {
		t.c.release(hold)
		if errors.Is(err, fs.ErrExist) {
			return there() // made meanwhile (another worker)
		}
		return err
	}
	t.c.madeDir(dst)
	return nil
}

func (t *treeCopy) mkdir(src, dst string, st cephfs.Stat) Report {
	if t.c.opts.DryRun {
		return t.c.dryRunMkdir(src, dst)
	}
	r := Report{Src: src, Dst: dst, Outcome: Dir}
	mayExist := t.fresh == nil || t.fresh.resumed || dst == t.fresh.staging
	if err := t.makeDir(dst, mayExist); err != nil {
		r.Outcome, r.Err = Failed, err
		return r
	}
	if t.c.opts.NoPreserve {
		if err := t.c.fs.SetAttrs(dst, cephfs.Attrs{Mode: st.Perm() &^ 0o6022, UID: st.UID, GID: st.GID,
			Atime: st.Atime, Mtime: st.Mtime}, false); err != nil {
			r.Outcome, r.Err = Failed, err
		}
		return r
	}
	attrs, err := t.c.readDirAttrs(src)
	if err == nil {
		err = t.c.setDirLayout(dst, attrs) // before the directory's files
	}
	if err == nil {
		err = t.c.copyXattrs(src, dst) // the owner is set at the end, and clears none on CephFS
	}
	if err != nil {
		r.Outcome, r.Err = Failed, err
		return r
	}
	t.c.repMu.Lock()
	t.dirs = append(t.dirs, dirTimes{src: src, dst: dst, st: st, attrs: attrs})
	t.c.repMu.Unlock()
	return r
}

// symlink re-creates the symlink src at dst, unless dst already is that
// symlink (sameSymlink: left alone, Unchanged) or, under NoClobber,
// anything else (Skipped).
func (t *treeCopy) symlink(src, dst string, st cephfs.Stat) Report {
	r := Report{Src: src, Dst: dst, Outcome: Linked}
	target, err := t.c.fs.Readlink(src)
	if err == nil {
		if same, reason := t.c.sameSymlink(dst, target, st); same {
			return Report{Src: src, Dst: dst, Outcome: Unchanged, Reason: reason, Symlink: true}
		}
		if t.c.opts.NoClobber {
			if _, serr := t.c.fs.Lstat(dst); serr == nil {
				return Report{Src: src, Dst: dst, Outcome: Skipped, Reason: "exists; no-clobber leaves it alone"}
			}
		}
	}
	if t.c.opts.DryRun && err == nil {
		r.DryRun = true
		return r
	}
	if err == nil {
		_, err = t.c.reserve(path.Dir(dst), 0, 1)
	}
	if err == nil && !t.c.opts.NoClobber {
		if old, serr := t.c.fs.Lstat(dst); serr == nil && !old.IsDir() {
			err = t.c.fs.Unlink(dst)
		}
	}
	if err == nil {
		err = t.c.fs.Symlink(target, dst)
	}
	if errors.Is(err, fs.ErrExist) && t.c.opts.NoClobber {
		// Made since the walk found no dst: symlink(2) does not replace.
		r.Outcome, r.Reason = Skipped, "created during the copy; no-clobber leaves it alone"
		return r
	}
	if err == nil && !t.c.opts.NoPreserve {
		err = t.c.fs.SetAttrs(dst, attrsOf(st), true)
	}
	if err != nil {
		r.Outcome, r.Err = Failed, err
	}
	return r
}

// special makes dst a FIFO, socket or device like src (ceph_mknod with
// its type and device number), with its mode, owner and times: such a
// file is its metadata, it has no data. What is at dst already, unless a
// directory, is replaced, as for a symlink; a special file of the same
// type and device number is kept and given src's attributes. Under
// --no-clobber, mknod's EEXIST leaves whatever appeared at dst since the
// walk looked.
func (t *treeCopy) special(src, dst string, st cephfs.Stat) Report {
	r := Report{Src: src, Dst: dst, Outcome: Special}
	if t.c.opts.DryRun {
		r.DryRun = true
		return r
	}
	if _, err := t.c.reserve(path.Dir(dst), 0, 1); err != nil {
		r.Outcome, r.Err = Failed, err
		return r
	}
	var err error
	if t.c.opts.NoClobber {
		if err = t.c.fs.Mknod(dst, st.Mode, st.Rdev); errors.Is(err, fs.ErrExist) {
			return Report{Src: src, Dst: dst, Outcome: Skipped, Reason: "exists; no-clobber leaves it alone"}
		}
	} else if old, serr := t.c.fs.Lstat(dst); serr != nil || old.Mode&^0o7777 != st.Mode&^0o7777 || old.Rdev != st.Rdev {
		if serr == nil && !old.IsDir() {
			err = t.c.fs.Unlink(dst)
		}
		if err == nil {
			err = t.c.fs.Mknod(dst, st.Mode, st.Rdev)
		}
	}
	if err == nil && !t.c.opts.NoPreserve {
		err = t.c.fs.SetAttrs(dst, attrsOf(st), false)
	}
	if err != nil {
		r.Outcome, r.Err = Failed, err
	}
	return r
}

// setDirTimes gives directory dst the mode, owner and times of st. A
// directory's mtime is part of the statistics the MDS gathers from its
// fragments lazily: a change of the directory's entries not yet gathered
// (the renames of the staging files) would later overwrite the mtime set
// here. A stat that asks for the mtime makes the MDS gather them first;
// the times are then checked afresh and set once more if they moved.
func (c *Copier) setDirTimes(dst string, st cephfs.Stat) error {
	for attempt := 0; ; attempt++ {
		if _, err := c.fs.Lstat(dst); err != nil {
			return err
		}
		if err := c.fs.SetAttrs(dst, attrsOf(st), false); err != nil {
			return err
		}
		now, err := c.fs.Lstat(dst)
		if err != nil {
			return err
		}
		if now.Mtime.Equal(st.Mtime) || attempt == 2 {
			return nil
		}
	}
}
