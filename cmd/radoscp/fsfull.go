package main

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/store"
)

// fullDataPool adds to err, a CephFS copy's ENOSPC or EDQUOT, the data
// pool of the file system that the OSD map flags over its quota or full.
// libcephfs refuses writes into a pool over its quota with ENOSPC, as
// into a full cluster, so the errno alone would send an operator to
// ceph health detail when the pool's quota is what to raise. The pool's
// EDQUOT then picks the quota's hint (spaceHint). A directory quota's
// refusal names its directory already; other errors are returned as
// they are.
func (f *fsRun) fullDataPool(err error) error {
	if e := store.ErrnoOf(err); (e != syscall.ENOSPC && e != syscall.EDQUOT) || errors.Is(err, fscopy.ErrDirQuota) {
		return err
	}
	_, pools, ok, lerr := cephfs.DataPools(f.runner.conn, f.name)
	if lerr != nil || !ok {
		return err
	}
	if full := f.runner.conn.FullPool(pools); full != nil {
		return fmt.Errorf("%w; data %w", err, full)
	}
	return err
}
