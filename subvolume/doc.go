// Package subvolume clones a CephFS subvolume's snapshot into a new
// subvolume, as `ceph fs subvolume snapshot clone` does, but with the
// data copied server-side by fscopy's tree copy.
//
// The mgr's volumes interface (go-ceph's cephfs/admin) finds the
// snapshot and creates the target; the copy goes into a staging directory
// inside the target (fscopy.StagingPrefix + "clone"), whose entries are
// moved into the target's root when the whole tree is copied. While the
// clone runs the target's root is mode 0700, owned by root, and carries a
// mark naming the snapshot; it gets the snapshot root's mode, owner,
// times, layout and quotas only at the end, once the mark is the last
// thing left. So nothing of a clone is visible to the target's users
// until it is complete, a killed clone is found by the rerun that
// continues it, and a failed clone's target is removed.
package subvolume
