package fscopy

import (
	"errors"
	"fmt"
	"io/fs"
)

// CheckResume refuses a resume of Copy(src, dst) that has nothing to
// resume: the target Copy would write (cp's rule, or rsync's with a
// trailing "/") does not exist and, for a file, no interrupted copy left
// a staging file for it. An interrupted tree copy has made its target
// (marked, see markTarget) or, for a new target, left its staging tree
// (freshtree.go), so with neither the copy never started, or finished
// and now resolves elsewhere (DST/base(SRC) once DST exists). It reads only: a rerun meant to continue never starts a second
// copy somewhere else. Errors other than a refusal are Copy's to report.
func (c *Copier) CheckResume(src, dst string) error {
	src, contents := splitContents(src)
	sst, err := c.fs.Lstat(src)
	if err != nil {
		return nil
	}
	if dst, err = c.target(src, dst, sst.IsDir(), contents); err != nil {
		return nil
	}
	_, err = c.fs.Lstat(dst)
	if !errors.Is(err, fs.ErrNotExist) || (!sst.IsDir() && c.stagingLeft(dst)) || (sst.IsDir() && c.treeLeft(src, dst)) {
		return nil
	}
	return fmt.Errorf("%w: --resume: nothing to resume: cephfs:%s does not exist, no interrupted copy of cephfs:%s made it; copy without --resume (a rerun leaves unchanged files alone; a source ending in \"/\" always copies into DST itself)", ErrUsage, dst, src)
}

// treeLeft reports whether an interrupted copy of tree src into the new
// target dst left its staging tree, marked as src's (freshTarget).
func (c *Copier) treeLeft(src, dst string) bool {
	return c.marked(src, stagingPath(dst, 0))
}
