package fscopy

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
	"github.com/radoscp/radoscp/verify"
	"github.com/radoscp/radoscp/window"
)

// ErrSourceChanged is reported for a file whose size, mtime or ctime
// changed while it was copied: the copy may mix old and new data, so it is
// not put in place. It is the engine's error, so errors.Is matches it
// whichever layer found the change.
var ErrSourceChanged = radoscp.ErrSourceChanged

// CopyFile copies the regular file src to dst through dst's staging file
// and renames it into place, replacing dst if it exists (with NoClobber,
// see place). The report says
// what happened; its Err is also returned.
func (c *Copier) CopyFile(ctx context.Context, src, dst string) Report {
	return c.copyFileAmong(ctx, src, dst, nil)
}

// copyFileAmong is CopyFile for a file of a tree whose copy puts the
// names placed in dst's directory: no staging name of dst takes one.
func (c *Copier) copyFileAmong(ctx context.Context, src, dst string, placed map[string]bool) Report {
	r := Report{Src: src, Dst: dst, Outcome: Copied}
	r.Err = c.copyFile(ctx, src, dst, placed, nil, nil, &r)
	var split errHardLink
	switch {
	case errors.As(r.Err, &split):
		r.Outcome, r.Reason, r.Err = Skipped, split.Error(), nil
	case errors.Is(r.Err, errClobber):
		// Skipped, as a destination found at the start is; the error
		// stays, for a copy of one file to exit with.
		r.Outcome, r.Reason = Skipped, "created during the copy; no-clobber leaves it alone"
	case r.Err != nil:
		r.Outcome = Failed
	}
	return r
}

// errHardLink is a file that CopyFile would replace in place (a migrate)
// found to be a hard link: replacing one name would split it from the
// others, so it is left alone, reported Skipped.
type errHardLink struct{ links uint32 }

func (e errHardLink) Error() string {
	return fmt.Sprintf("hard link (%d links): migrating one name would split it from the others", e.links)
}

// copyFile copies src to dst (see copyFileAmong). For a migrate (src ==
// dst), others are the file's other names, its hard links, all replaced by
// links to the copy (oldinode.go). With ft, dst is in the staging tree of
// a tree copy into a new target, and made there (see freshtree.go).
func (c *Copier) copyFile(ctx context.Context, src, dst string, placed map[string]bool, others []string, ft *freshTree, r *Report) (err error) {
	sf, err := c.openSource(src)
	if err != nil {
		return err
	}
	defer sf.close()
	sst, err := sf.stat()
	if err != nil {
		return err
	}
	if !sst.IsRegular() {
		return fmt.Errorf("cephfs:%s is a %s, not a regular file", src, sst.Type())
	}
	// The source-change check's baseline (checkSource compares it with a
	// fresh stat before the rename): taken here, as the copy starts, with
	// every write it shows in the objects the copy reads (flushedStat).
	if sst, err = c.flushedStat(src, sst); err != nil {
		return err
	}
	// A migrate decided on the walk's stat; a link made since shows here
	// (and one made later moves the ctime, which checkSource compares).
	if src == dst && sst.Nlink != uint32(1+len(others)) {
		return errHardLink{sst.Nlink}
	}
	snap, err := c.sourceSnapshot(src, sst.Snap)
	if err != nil {
		return err
	}
	sl, read, err := c.sourceLayout(sf, sst)
	if err != nil {
		return err
	}
	single := oneObject(sst.Size, c.stagingStriping(sl.Layout))
	// The staging file's entry and whole size are taken from the
	// destination's quotas before it is made (quota.go); given back when
	// it is removed.
	hold, err := c.reserve(path.Dir(dst), int64(sst.Size), 1)
	if err != nil {
		return fmt.Errorf("copy cephfs:%s -> cephfs:%s: %w; nothing was copied", src, dst, err)
	}
	start := time.Now()
	var file *cephfs.File
	var d *truncate.CephFS
	if ft != nil {
		file, d, err = c.openNew(dst, sst, sl, single, r)
	} else {
		file, d, err = c.openStaging(dst, placed, sst, sl, single, r)
	}
	if err != nil {
		c.release(hold)
		return err
	}
	defer file.Close()
	staging := file.Path()
	defer func() {
		if err == nil {
			return
		}
		if st, serr := c.fs.Lstat(staging); serr != nil || st.Ino != file.Ino() {
			c.release(hold) // removed
		}
	}()
	if snap != nil {
		// Whatever failed (a read of the snapshot's data or metadata),
		// a snapshot removed meanwhile is the cause to report, and what
		// was copied of it is not to be resumed.
		defer func() {
			if err == nil || errors.Is(err, store.ErrSnapshotRemoved) {
				return
			}
			if serr := c.checkSnapshot(snap); serr != nil {
				c.discard(file, sst.Size)
				err = fmt.Errorf("copy cephfs:%s -> cephfs:%s: %w (then: %w); %s was left as it was", src, dst, serr, err, dst)
			}
		}()
	}

	srcPool, err := c.pool(sl, sst.Snap)
	if err != nil {
		return fmt.Errorf("source cephfs:%s: %w", src, err)
	}
	source := radoscp.Source{Objects: srcPool, Layout: sl.Layout, Names: layout.CephFS(sst.Ino), Size: sst.Size}
	from := d.EOF()
	r.Result, err = c.engine.Copy(ctx, read.source(source), from, d, from, sst.Size-from, c.opts.Copy)
	if err != nil {
		if d.EOF() == 0 || d.Unrecorded() {
			// Nothing to resume (or, a one-object copy, nothing a
			// resume would continue): leave nothing behind. Its one
			// object is removed with it, whatever its size.
			_ = c.removeStaging(file)
			return fmt.Errorf("copy cephfs:%s -> cephfs:%s: %w", src, dst, err)
		}
		c.keepStart(ctx, file, start)
		return fmt.Errorf("copy cephfs:%s -> cephfs:%s (staging file %s keeps the first %d bytes; a resume continues): %w",
			src, dst, staging, d.EOF(), err)
	}
	// The engine published what it copied; an empty file, or a resumed
	// one that was complete, still needs its size and EOF.
	if err := d.Publish(sst.Size); err != nil {
		return err
	}
	if err := c.checkComplete(staging, file.Ino(), sst, d); err != nil {
		c.discard(file, sst.Size)
		return fmt.Errorf("copy cephfs:%s -> cephfs:%s: %w; %s was left as it was", src, dst, err, dst)
	}
	if err := c.verifyCopy(ctx, source, d, r); err != nil {
		c.discard(file, sst.Size)
		return fmt.Errorf("copy cephfs:%s -> cephfs:%s: %w; %s was left as it was", src, dst, err, dst)
	}
	if ft != nil {
		return c.leaveNew(file, sf, dst, sst, snap, d.Unrecorded(), ft)
	}
	var marks []string // the mark, a mode, goes with the copy's own
	if !d.Unrecorded() {
		marks = []string{truncate.XattrEOF, xattrSource, xattrOwner}
	}
	if err := c.finish(file, sf, sst, marks); err != nil {
		return err
	}
	// The size Publish grew and the times and mode finish set may be held
	// by this client as dirty capabilities, not yet sent to the MDS (the
	// client's own stats see them; no other client does). Killed after
	// the rename, the client would leave the file in place at the size
	// the MDS last had: a short file. fsync sends them and waits until
	// the MDS has them, whatever --sync says; the checks below then read
	// what every client will see.
	if err := file.Fsync(); err != nil {
		return fmt.Errorf("copy cephfs:%s -> cephfs:%s: %w; %s was left as it was", src, dst, err, dst)
	}
	c.hooks.afterCopy(src)
	if err := c.checkSource(src, sst, snap); err != nil {
		c.discard(file, sst.Size)
		return fmt.Errorf("copy cephfs:%s -> cephfs:%s: %w; %s was left as it was", src, dst, err, dst)
	}
	// Once more, right before the rename: nothing but a complete copy
	// replaces dst (for migrate, the original).
	if err := c.checkComplete(staging, file.Ino(), sst, nil); err != nil {
		c.discard(file, sst.Size)
		return fmt.Errorf("copy cephfs:%s -> cephfs:%s: %w; %s was left as it was", src, dst, err, dst)
	}
	// A migrate keeps a reference on the inode it replaces: writes made to
	// it across the rename show, and are kept (oldinode.go).
	var old *oldInode
	if src == dst {
		if old, err = c.holdOld(dst, sst, others); err != nil {
			c.discard(file, sst.Size)
			return fmt.Errorf("copy cephfs:%s -> cephfs:%s: %w; %s was left as it was", src, dst, err, dst)
		}
		defer old.release()
	}
	// Every object of the file is written by now: an MDS recovery of it
	// takes an mtime no later than this (see placed.untouched).
	placedAt := time.Now()
	if err := c.place(file, dst, sst.Size); err != nil {
		old.drop()
		return err
	}
	if src == dst {
		c.release(quotaHold{path.Dir(dst), int64(sst.Size), 1}) // a migrate: the original is gone
	}
	c.settle(ctx, dst, file.Ino(), sst, placedAt)
	if err := old.relinkAll(dst, others); err != nil {
		return err // the old inode keeps names: nothing written to it is lost
	}
	c.hooks.afterRename(dst)
	return old.check()
}

// checkSource fails a copy whose source may not be what it read: a file
// at head that changed (size, mtime, ctime), or a snapshot that is gone.
// A snapshot cannot change, but once removed, reads at its id find holes
// (ENOENT, which the engine copies as holes) or whatever the OSDs have
// not trimmed yet; this check, after every read and before the rename,
// is what keeps such a copy from being put in place.
func (c *Copier) checkSource(src string, sst cephfs.Stat, snap *snapshot) error {
	if snap != nil {
		return c.checkSnapshot(snap)
	}
	now, err := c.fs.Lstat(src)
	if err != nil {
		return err
	}
	if !now.Same(sst) {
		return fmt.Errorf("cephfs:%s: %w (%s, now %s)", src, ErrSourceChanged, sourceRecord(sst), sourceRecord(now))
	}
	return nil
}

// ErrIncomplete is a staging file that, checked afresh before it would be
// put in place, is not a complete copy of its source. It is not renamed.
var ErrIncomplete = errors.New("staging file is not a complete copy")

// checkComplete stats the staging file afresh by path (this client may
// answer from its caps; for the check right before the rename, CopyFile's
// fsync has given the MDS the same), and checks that it is the file this copy wrote (ino) and has the
// source's size; with d, also that its recorded EOF says the whole source
// is in place (the record in XattrEOF, or for an unrecorded one-object
// copy, the EOF the engine recorded in d). This is what stands between a
// wrong publish and a short file replacing its destination.
func (c *Copier) checkComplete(staging string, ino uint64, sst cephfs.Stat, d *truncate.CephFS) error {
	st, err := c.fs.Lstat(staging)
	if err != nil {
		return err
	}
	if st.Ino != ino {
		return fmt.Errorf("%w: cephfs:%s is inode %x, not the %x this copy wrote", ErrIncomplete, staging, st.Ino, ino)
	}
	if st.Size != sst.Size {
		return fmt.Errorf("%w: cephfs:%s is %d bytes, the source %d", ErrIncomplete, staging, st.Size, sst.Size)
	}
	if d == nil {
		return nil
	}
	if d.Unrecorded() {
		if d.Recorded() != sst.Size {
			return fmt.Errorf("%w: cephfs:%s has %d bytes in place, the source %d", ErrIncomplete, staging, d.Recorded(), sst.Size)
		}
		return nil
	}
	v, err := c.fs.GetXattr(staging, truncate.XattrEOF)
	if err != nil {
		return err
	}
	if string(v) != strconv.FormatUint(sst.Size, 10) {
		return fmt.Errorf("%w: cephfs:%s records %s bytes in place (%s), the source has %d", ErrIncomplete, staging, v, truncate.XattrEOF, sst.Size)
	}
	return nil
}

// discard removes the staging file this copy wrote, which must not be put
// in place, first growing it over every object it may have (see
// coverForPurge). It works on the open file, this copy's own inode,
// whatever its name now names.
func (c *Copier) discard(file *cephfs.File, size uint64) {
	coverForPurge(file, size)
	_ = c.removeStaging(file)
}

// openStaging creates dst's staging file, or with Resume continues the one
// an interrupted copy of the same unchanged source left. Any other staging
// file of dst there is an interrupted copy's leftover, and is removed. A
// copy holds an exclusive lock on its staging file (through the MDS) while
// it runs: a staging file whose lock is held is a live copy's, and is left
// alone (ErrBusy); one whose lock can be taken is a dead copy's. What is
// not a staging file of dst (see staging.go) is left alone, and the next
// staging name is tried; so are the names placed (a tree's entries beside
// dst: one of them renamed onto a live staging file would fail its copy).
func (c *Copier) openStaging(dst string, placed map[string]bool, sst cephfs.Stat, sl cephfs.FileLayout, single bool, r *Report) (*cephfs.File, *truncate.CephFS, error) {
	for k := range stagingNames {
		if placed[path.Base(stagingPath(dst, k))] {
			continue
		}
		file, d, err := c.openStagingAt(stagingPath(dst, k), path.Base(dst), sst, sl, single, r)
		if !errors.Is(err, errNotStaging) {
			return file, d, err
		}
	}
	return nil, nil, errNoStagingName(dst)
}

// openStagingAt is openStaging at one staging name. The staging file is
// created first, without a lookup: only when something exists there
// already (EEXIST) is it looked at.
func (c *Copier) openStagingAt(staging, base string, sst cephfs.Stat, sl cephfs.FileLayout, single bool, r *Report) (*cephfs.File, *truncate.CephFS, error) {
	file, err := c.fs.CreateExclusive(staging, 0o600)
	if errors.Is(err, fs.ErrExist) {
		var d *truncate.CephFS
		if file, d, err = c.reuseStaging(staging, base, sst, sl, r); file != nil || err != nil {
			return file, d, err
		}
		file, err = c.fs.CreateExclusive(staging, 0o600)
	}
	if errors.Is(err, fs.ErrExist) {
		return nil, nil, fmt.Errorf("%w: cephfs:%s was created meanwhile, after a leftover staging file there was removed; nothing was changed", ErrBusy, staging)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := file.TryLock(); err != nil {
		// Another run took it for a dead copy's leftover in the moment
		// between its creation and this lock; that run goes on.
		defer file.Close()
		return nil, nil, c.busy(file, err)
	}
	// Marked once locked: a run that finds it marked finds it locked.
	err = markStaging(file)
	var d *truncate.CephFS
	if err == nil {
		d, err = c.initStaging(file, sst, sl, single)
	}
	if err == nil && !single {
		err = c.claim(file, false)
	}
	if err != nil {
		_ = c.removeStaging(file)
		file.Close()
		return nil, nil, err
	}
	return file, d, nil
}

// reuseStaging handles what is found at a staging name: a live copy's
// staging file (ErrBusy), an interrupted one's, which with Resume it
// continues (returning it) and otherwise removes (returning no file and no
// error), or anything else (errNotStaging), which it leaves alone. The
// mark is read before the file is opened, and again on the open file: the
// file locked, grown and removed is the one that carries it.
func (c *Copier) reuseStaging(staging, base string, sst cephfs.Stat, sl cephfs.FileLayout, r *Report) (*cephfs.File, *truncate.CephFS, error) {
	st, err := c.fs.Lstat(staging)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil // removed meanwhile
	case err != nil || !c.stagingMarked(staging, st, base):
		return nil, nil, errNotStaging
	}
	old, err := c.fs.OpenWriteNoFollow(staging)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil
	case err != nil:
		return nil, nil, fmt.Errorf("%w: %w", errNotStaging, err)
	}
	if err := c.ownsStaging(old, base); err != nil {
		old.Close()
		return nil, nil, err
	}
	if err := old.TryLock(); err != nil {
		defer old.Close()
		return nil, nil, c.busy(old, err)
	}
	d, err := c.resumeLeft(old, sst, sl, r, "removed the staging file of an interrupted copy (a resume would continue it)")
	if err != nil {
		old.Close()
		return nil, nil, err
	}
	if d != nil {
		if err := adoptStaging(old); err != nil {
			old.Close()
			return nil, nil, err
		}
		return old, d, c.claim(old, true)
	}
	coverForPurge(old, sst.Size)
	err = c.removeStaging(old)
	old.Close()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	return nil, nil, nil
}

// resumeLeft continues, with Resume, the interrupted copy left in old
// when it is one of the same, unchanged source (see resume), noting it in
// r. Otherwise it returns nil and says in r's reason why the copy starts
// over (without Resume: notResumed).
func (c *Copier) resumeLeft(old *cephfs.File, sst cephfs.Stat, sl cephfs.FileLayout, r *Report, notResumed string) (*truncate.CephFS, error) {
	if !c.opts.Resume {
		r.Reason = notResumed
		return nil, nil
	}
	d, why, err := c.resume(old, sst, sl)
	if err != nil {
		return nil, err
	}
	if d == nil {
		r.Reason = "restarted: " + why
		return nil, nil
	}
	r.Resumed, r.ResumedFrom = true, d.EOF()
	return d, nil
}

// ErrBusy is a destination another copy, alive, is writing: its staging
// file's lock is held. Nothing of it was changed.
var ErrBusy = errors.New("another copy is writing this destination")

// xattrOwner names the copy that holds a staging file, for the message
// another run gives.
const xattrOwner = "user.radoscp.owner"

// claim records this run as the staging file's owner and, for a resumed
// one, gives the file the copy's start as its times, so that its age says
// when the copy began (a new file has them from its creation). A
// one-object copy is not claimed: it records nothing (see oneObject), and
// its staging file lives for moments.
func (c *Copier) claim(file *cephfs.File, resumed bool) error {
	if err := recordOwner(file); err != nil {
		return err
	}
	if !resumed {
		return nil
	}
	st, err := file.Stat()
	if err != nil {
		return err
	}
	now := time.Now()
	return c.fs.SetAttrs(file.Path(), cephfs.Attrs{Mode: st.Perm(), UID: st.UID, GID: st.GID, Atime: now, Mtime: now}, false)
}

// recordOwner records this run as the holder of file (a staging file or
// a staging tree's directory), for the message another run gives.
func recordOwner(file *cephfs.File) error {
	host, _ := os.Hostname()
	owner := fmt.Sprintf("radoscp pid %d on %s, started %s", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	return file.SetXattr(xattrOwner, []byte(owner))
}

// ownerOf is the holder file records, or unknown when it records none.
func ownerOf(file *cephfs.File, unknown string) string {
	if v, err := file.GetXattr(xattrOwner); err == nil {
		return string(v)
	}
	return unknown
}

// busy is the error for a staging file whose lock another copy holds.
func (c *Copier) busy(file *cephfs.File, lockErr error) error {
	owner := ownerOf(file, "owner not recorded: a copy of a file of one object records none")
	return fmt.Errorf("%w: staging file cephfs:%s is locked (%s); nothing was changed: %w", ErrBusy, file.Path(), owner, lockErr)
}

// coverForPurge grows a leftover staging file over every object its
// interrupted copy may have written (all below the source's size, then or
// now), so that when it is unlinked the MDS purges them all: it purges a
// removed file's objects up to its size. Best effort: a failure only
// leaves unreadable objects of a removed inode behind.
func coverForPurge(file *cephfs.File, size uint64) {
	if rec, err := file.GetXattr(xattrSource); err == nil {
		var ino, was uint64
		if _, err := fmt.Sscanf(string(rec), "ino=%x size=%d", &ino, &was); err == nil {
			size = max(size, was)
		}
	}
	if now, err := file.Size(); err == nil && now < size {
		_ = file.Truncate(size)
	}
}

// initStaging sets a new staging file's layout while it is empty and
// records its source, unless single (a one-object copy, see oneObject).
func (c *Copier) initStaging(file *cephfs.File, sst cephfs.Stat, sl cephfs.FileLayout, single bool) (*truncate.CephFS, error) {
	inherited, err := c.inheritedLayout(file, single)
	if err != nil {
		return nil, err
	}
	// Setting a layout needs the 'p' flag in the client's MDS caps: only
	// do it when the file did not get the right one from its directory.
	want := c.wantLayout(sl, inherited)
	if want != inherited {
		if err := file.SetLayout(want); err != nil {
			return nil, fmt.Errorf("set layout %s (needs MDS caps with 'p', e.g. 'allow rwp'): %w", want, err)
		}
	}
	pool, err := c.pool(want, 0)
	if err != nil {
		return nil, err
	}
	if single {
		return truncate.NewUnrecordedCephFS(file, pool, want.Layout), nil
	}
	if err := file.SetXattr(xattrSource, []byte(sourceRecord(sst))); err != nil {
		return nil, err
	}
	d, err := truncate.NewCephFS(file, pool, want.Layout)
	if err != nil {
		return nil, err
	}
	// Sized before any object is copied (see truncate.CephFS.Cover).
	if err := d.Cover(sst.Size); err != nil {
		return nil, clientQuota(path.Dir(file.Path()), err)
	}
	return d, nil
}

// wantLayout is the layout a staging file gets: the source's striping sl
// (or Options.Striping) in the pool a new file in the destination
// directory gets, have (or Options.Pool).
func (c *Copier) wantLayout(sl, have cephfs.FileLayout) cephfs.FileLayout {
	want := cephfs.FileLayout{Layout: sl.Layout, Pool: have.Pool, Namespace: have.Namespace}
	if c.opts.Striping != nil {
		want.Layout = *c.opts.Striping
	}
	if c.opts.Pool != "" {
		want.Pool, want.Namespace = c.opts.Pool, ""
	}
	return want
}

// resume continues the locked staging file. It returns a nil destination
// and the reason when the file is not a copy of this source as it is now.
func (c *Copier) resume(file *cephfs.File, sst cephfs.Stat, sl cephfs.FileLayout) (*truncate.CephFS, string, error) {
	rec, err := file.GetXattr(xattrSource)
	switch {
	case err != nil:
		// Not a change of the source: a one-object copy records
		// nothing to resume from (see oneObject).
		return nil, "the staging file records no source to resume from (a copy of a file of one object records none)", nil
	case string(rec) != sourceRecord(sst):
		return nil, "the source changed since the interrupted copy", nil
	}
	have, err := file.Layout()
	if err != nil {
		return nil, "", err
	}
	if want := c.wantLayout(sl, have); have != want {
		return nil, fmt.Sprintf("the staging file's layout (%s) is not the one wanted (%s)", have, want), nil
	}
	pool, err := c.pool(have, 0)
	if err != nil {
		return nil, "", err
	}
	d, err := truncate.ResumeCephFS(file, pool, have.Layout, sst.Size)
	if err != nil {
		return nil, "", clientQuota(path.Dir(file.Path()), err)
	}
	// The cut-back left it at its EOF: covered again before copying on.
	if err := d.Cover(sst.Size); err != nil {
		return nil, "", clientQuota(path.Dir(file.Path()), err)
	}
	return d, "", nil
}

// finish puts the source's metadata on the complete copy and removes
// radoscp's records, marks, from it; the copy's mode replaces a staging
// file's mark (staging.go). The mode, owner and times are set
// through the open file: on a file this client holds exclusive caps on,
// they are buffered, not MDS requests (cephfs.File.SetAttrs). The xattrs
// go after the owner and mode (see copyXattrs); they move no times.
func (c *Copier) finish(file *cephfs.File, src *srcFile, sst cephfs.Stat, marks []string) error {
	for _, name := range marks {
		if err := file.RemoveXattr(name); err != nil {
			return err
		}
	}
	if c.opts.NoPreserve {
		st, err := file.Stat()
		if err != nil {
			return err
		}
		return file.SetAttrs(cephfs.Attrs{Mode: sst.Perm() &^ 0o6022, UID: st.UID, GID: st.GID,
			Atime: st.Atime, Mtime: st.Mtime})
	}
	if err := file.SetAttrs(attrsOf(sst)); err != nil {
		return err
	}
	want, err := src.xattrs()
	if err != nil {
		return err
	}
	return c.giveXattrs(src.path, want, file.Path())
}

func attrsOf(st cephfs.Stat) cephfs.Attrs {
	return cephfs.Attrs{Mode: st.Perm(), UID: st.UID, GID: st.GID, Atime: st.Atime, Mtime: st.Mtime}
}

// ErrMismatch is a copy that verification found different from its
// source. It is not put in place.
var ErrMismatch = errors.New("the copy differs from its source")

// verifying reports whether Options.Verify asks for copies' data to be
// compared with their sources.
func (c *Copier) verifying() bool { return c.opts.Verify != "" && c.opts.Verify != verify.Off }

// verifyCopy compares the complete staging file d with source, as
// Options.Verify says, and records what it found in r.
func (c *Copier) verifyCopy(ctx context.Context, source radoscp.Source, d *truncate.CephFS, r *Report) error {
	if !c.verifying() {
		return nil
	}
	staging := radoscp.Source{Objects: d.Objects(), Layout: d.Layout(), Names: d.Names(), Size: d.EOF()}
	res, err := verify.Check(ctx, c.opts.Verify, radoscp.Source(source), staging, cmp.Or(c.opts.Copy.Window, window.DefaultWidth))
	r.Verified = &res
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if !res.Same() {
		return fmt.Errorf("%w: %s (differences: %d)", ErrMismatch, res.Differences[0], len(res.Differences))
	}
	return nil
}
