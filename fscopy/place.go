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
// staging name as a second, unmarked link to it.
func (c *Copier) place(file *cephfs.File, dst string, size uint64) error {
	if !c.opts.NoClobber {
		return c.fs.Rename(file.Path(), dst)
	}
	err := c.fs.Link(file.Path(), dst)
	if errors.Is(err, fs.ErrExist) {
		c.discard(file, size)
		return fmt.Errorf("cephfs:%s was created during the copy; %w (the copy was discarded)", dst, errClobber)
	}
	if err != nil {
		return err
	}
	return c.removeStaging(file)
}
