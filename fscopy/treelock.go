package fscopy

import (
	"errors"
	"fmt"

	"github.com/radoscp/radoscp/cephfs"
)

// treeLock is a tree copy's hold on its target directory: an exclusive
// lock (ceph_flock, as on staging files) on the open directory, with the
// run named in xattrOwner for the run it turns away. Two runs of the
// same tree copy started together would otherwise both walk the tree,
// each failing on the files whose staging file the other holds, and
// neither would finish (nor remove the tree mark). A sharded copy's
// workers share one target on purpose and take no lock.
type treeLock struct {
	c   *Copier
	dir *cephfs.File
}

// lockTree takes dst's lock, or gives ErrBusy naming the run that holds
// it; nothing is changed then.
func (c *Copier) lockTree(dst string) (*treeLock, error) {
	d, err := c.fs.OpenRead(dst)
	if err != nil {
		return nil, err
	}
	if err := d.TryLock(); err != nil {
		defer d.Close()
		if !errors.Is(err, cephfs.ErrLocked) {
			return nil, err
		}
		owner := "owner not recorded yet"
		if v, gerr := d.GetXattr(xattrOwner); gerr == nil {
			owner = string(v)
		}
		return nil, fmt.Errorf("%w: tree cephfs:%s is locked by another copy (%s); nothing was changed: %w", ErrBusy, dst, owner, err)
	}
	if err := c.claim(d, false); err != nil {
		d.Close()
		return nil, err
	}
	return &treeLock{c: c, dir: d}, nil
}

// release removes the owner's name and drops the lock. A nil lock (none
// taken) is valid.
func (l *treeLock) release() {
	if l == nil {
		return
	}
	_ = l.c.fs.RemoveXattr(l.dir.Path(), xattrOwner)
	_ = l.dir.Close()
}
