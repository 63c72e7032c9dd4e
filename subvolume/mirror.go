package subvolume

import (
	"errors"
	"fmt"
	"path"
	"syscall"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/store"
)

// xattrMirror marks a sync's target, on its root, as the mirror of one
// source subvolume (mirrorOf). Sync writes it as soon as it has created
// the target, before anything is copied, so that the rerun of an
// interrupted first sync knows the target as its own; and before it
// copies into a target it recognised otherwise or adopted. The tree
// copy leaves radoscp's own xattrs on its target alone (fscopy's
// xattrs.go) and never removes this one: unlike the record of the last
// complete copy (user.radoscp.synced), which every copy removes before
// it writes, the mark survives an interrupted sync.
const xattrMirror = "user.radoscp.mirror"

// mirrorOf is the mark of a mirror of subvolume sub of volume vol in
// group g ("" for none): VOLUME/GROUP/SUBVOLUME, as a clone's mark names
// its source.
func mirrorOf(vol, g, sub string) string {
	return vol + "/" + groupName(g) + "/" + sub
}

// checkMirror decides whether Sync may copy into the target root of r
// (created by this run when created is set), before anything is written
// into it. The target is the mirror of r's source when:
//   - this run created it;
//   - it carries the source's mark (an earlier sync created or adopted
//     it);
//   - it carries no mark and records a complete copy of a snapshot of
//     the source (a sync by a radoscp that wrote no mark);
//   - it is empty: there is nothing to lose (this is also how a target
//     whose creating run stopped before it could mark it is taken).
//
// Any other target (one with entries and neither mark nor record, one
// whose mark or record names another subvolume) is refused with
// ErrUsage, saying why, unless r.Adopt. A target taken is marked
// (unless r.DryRun); adopted reports that it was not the source's
// mirror before this run: empty, or taken with r.Adopt.
func (c *Cloner) checkMirror(r SyncRequest, src source, root string, created bool) (adopted bool, err error) {
	want := mirrorOf(r.Volume, r.Group, r.Subvolume)
	if created {
		return false, c.markMirror(r, root, want)
	}
	var why string
	v, err := c.fs.GetXattr(root, xattrMirror)
	switch {
	case err == nil && string(v) == want:
		return false, nil
	case err == nil:
		why = fmt.Sprintf("it is the mirror of subvolume %s (its mark %s)", v, xattrMirror)
	case !noXattr(err):
		return false, fmt.Errorf("reading the mark %s of target subvolume %s (cephfs:%s): %w", xattrMirror, r.Target, root, err)
	default:
		dir, rel := snapshotOrigin(src.path, cephfs.SnapDir(c.conn))
		if rdir, rrel, ok := c.copier.SyncedFrom(root); ok {
			if rdir == dir && rrel == rel {
				return false, c.markMirror(r, root, want) // synced before marks were written
			}
			why = fmt.Sprintf("its last complete sync copied a snapshot of cephfs:%s, not of subvolume %s", rdir, r.Subvolume)
			break
		}
		entries, err := c.fs.ReadDir(root)
		if err != nil {
			return false, fmt.Errorf("listing target subvolume %s (cephfs:%s): %w", r.Target, root, err)
		}
		if len(entries) == 0 {
			return true, c.markMirror(r, root, want)
		}
		why = fmt.Sprintf("it is not empty and was not made by a sync of subvolume %s (it has no mark %s and no record of a complete sync of it)", r.Subvolume, xattrMirror)
	}
	if r.Adopt {
		return true, c.markMirror(r, root, want)
	}
	return false, fmt.Errorf("%w: target subvolume %s%s of volume %s (cephfs:%s) exists and is not a mirror of subvolume %s%s: %s. "+
		"A sync removes from its target whatever the snapshot lacks, so nothing was written. Check the names; "+
		"to make %s the mirror of %s anyway, removing from it what the snapshot lacks, rerun with --adopt-target",
		ErrUsage, r.Target, inGroup(r.TargetGroup), r.Volume, root, r.Subvolume, inGroup(r.Group), why, r.Target, r.Subvolume)
}

// markMirror marks root as the mirror of mark, unless r is a dry run.
func (c *Cloner) markMirror(r SyncRequest, root, mark string) error {
	if r.DryRun {
		return nil
	}
	if err := c.fs.SetXattr(root, xattrMirror, []byte(mark)); err != nil {
		return fmt.Errorf("marking target subvolume %s (cephfs:%s) as the mirror of %s: %w", r.Target, root, mark, err)
	}
	return nil
}

// snapshotOrigin splits the tree p of a subvolume's snapshot as the
// record of a complete copy names it (fscopy's prune.go): the
// snapshotted directory, and the path below the snapshot. Version 2
// subvolumes keep it at DIR/.snap/NAME/UUID, version 1 at
// DATA/.snap/NAME (source).
func snapshotOrigin(p, snapdir string) (dir, rel string) {
	if path.Base(path.Dir(p)) == snapdir {
		return path.Dir(path.Dir(p)), ""
	}
	return path.Dir(path.Dir(path.Dir(p))), path.Base(p)
}

// noXattr reports whether err says the xattr does not exist.
func noXattr(err error) bool {
	return errors.Is(err, syscall.ENODATA) || store.ErrnoOf(err) == syscall.ENODATA
}
