package fscopy

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/radoscp/radoscp/cephfs"
)

// errClobber is a destination that appeared during a no-clobber copy,
// after the check that it did not exist: it is left alone and the copy
// discarded, as cp -n leaves it.
var errClobber = errors.New("no-clobber leaves existing destinations alone")

// place puts the complete staging file at dst. A rename replaces dst if
// it exists; with NoClobber the file is linked at dst instead, which
// fails if anything is there (EEXIST, cp -n's O_EXCL), and its staging
// name is then removed: a destination made after the copy's check is
// left as it is, and the copy discarded (errClobber). A run killed
// between the link and the unlink leaves the copy in place and its
// staging name as a second, unmarked link to it. A copy that cannot be
// put in place (a directory made at dst since the copy's check: EISDIR,
// ENOTEMPTY) is discarded: its staging file, with the source's mode by
// now and so no longer marked as radoscp's, would be left for good.
func (c *Copier) place(file *cephfs.File, dst string, size uint64) error {
	var err error
	if !c.opts.NoClobber {
		err = c.fs.Rename(file.Path(), dst)
	} else if err = c.fs.Link(file.Path(), dst); errors.Is(err, fs.ErrExist) {
		c.discard(file, size)
		return fmt.Errorf("cephfs:%s was created during the copy; %w (the copy was discarded)", dst, errClobber)
	}
	if err != nil {
		c.discard(file, size)
		return fmt.Errorf("putting the copy at cephfs:%s: %w; the copy was discarded and cephfs:%s left as it was", dst, err, dst)
	}
	if c.opts.NoClobber {
		return c.removeStaging(file)
	}
	return nil
}
