package fscopy

import (
	"context"
	"time"

	"github.com/radoscp/radoscp/cephfs"
)

// keepStart gives a staging file kept for a resume the copy's start as
// its times again, as they are while the copy runs (age-based cleanup of
// staging files relies on them): the cut-back's truncate moved them, and
// an MDS recovery of the file would move its mtime to its newest
// object's, which a copy-from gives the source object's mtime, however
// old. It is settled like a file put in place (settle.go), in the
// background; a change by another client since is left alone.
func (c *Copier) keepStart(ctx context.Context, file *cephfs.File, start time.Time) {
	st, err := file.Stat()
	if err != nil {
		c.settleFailed(file.Path(), err)
		return
	}
	st.Atime, st.Mtime = start, start
	c.settleThen(ctx, file.Path(), st, time.Now(), nil)
}
