package rados

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/radoscp/radoscp/store"
)

// PoolSnap is a pool snapshot: its name and the id reads at it use.
type PoolSnap struct {
	Pool, Name string
	ID         uint64
}

func (s PoolSnap) String() string { return fmt.Sprintf("pool snapshot %s of pool %s", s.Name, s.Pool) }

// LookupPoolSnap finds pool snapshot name of pool, as the latest OSD map
// has it (rados_wait_for_latest_osdmap, rados_ioctx_snap_lookup). A
// missing snapshot gives ErrNotFound naming it.
func (c *Conn) LookupPoolSnap(pool, name string) (PoolSnap, error) {
	p, err := c.OpenPool(pool, "")
	if err != nil {
		return PoolSnap{}, err
	}
	if err := c.rc.WaitForLatestOSDMap(); err != nil {
		return PoolSnap{}, wrap("wait for the latest osdmap", pool, err)
	}
	id, err := p.io.LookupSnap(name)
	if err != nil {
		e := wrap("lookup snapshot "+name, pool, err)
		var se *store.Error
		if errors.As(e, &se) && se.Errno == syscall.ENOENT {
			se.Detail = "pool " + pool + " has no snapshot " + name
		}
		return PoolSnap{}, e
	}
	return PoolSnap{Pool: pool, Name: name, ID: uint64(id)}, nil
}

// CheckPoolSnap reports an error naming s if pool snapshot s is gone (or
// its name now stands for another snapshot), as the latest OSD map says.
// A snapshot cannot come back, so reads at s that completed before a nil
// answer read s.
func (c *Conn) CheckPoolSnap(s PoolSnap) error {
	now, err := c.LookupPoolSnap(s.Pool, s.Name)
	switch {
	case store.ErrnoOf(err) == syscall.ENOENT:
		return fmt.Errorf("%w: %s (id %d) is gone: %w", store.ErrSnapshotRemoved, s, s.ID, err)
	case err != nil:
		return fmt.Errorf("checking %s: %w", s, err)
	case now.ID != s.ID:
		return fmt.Errorf("%w: %s (id %d) is gone; the name now stands for snapshot id %d", store.ErrSnapshotRemoved, s, s.ID, now.ID)
	}
	return nil
}
