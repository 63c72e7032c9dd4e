package fscopy

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/radoscp/radoscp/cephfs"
)

// A dry run (Options.DryRun) walks the tree as a copy or migrate would,
// and reports for each path what the copy would do, without writing
// anything: no staging file, directory, link, mark or time is made or
// changed. Everything it does is a read (stats, directory listings,
// layouts, xattrs; under Verify the checksums of files that pass the
// quick check). A file that would be copied is reported Copied with its
// size as Result.Bytes and DryRun set; what would be left alone, skipped
// or fails a check a real run makes first is reported as a real run
// would.

// dryRunFile is what copying the regular file src to dst would do.
func (c *Copier) dryRunFile(src, dst string, sst cephfs.Stat) Report {
	r := Report{Src: src, Dst: dst, Outcome: Copied, DryRun: true}
	r.Result.Bytes = sst.Size
	switch have, err := c.fs.Lstat(dst); {
	case err == nil && have.IsDir():
		r.Outcome, r.Err = Failed, fmt.Errorf("cephfs:%s exists and is a directory", dst)
	case err == nil:
		r.Reason = fmt.Sprintf("would replace the %s there (%d bytes)", have.Type(), have.Size)
	case !errors.Is(err, fs.ErrNotExist):
		r.Outcome, r.Err = Failed, err
	}
	return r
}

// dryRunMkdir is what making directory dst would do.
func (c *Copier) dryRunMkdir(src, dst string) Report {
	r := Report{Src: src, Dst: dst, Outcome: Dir, DryRun: true}
	switch have, err := c.fs.Lstat(dst); {
	case err == nil && !have.IsDir():
		r.Outcome, r.Err = Failed, fmt.Errorf("cephfs:%s exists and is not a directory", dst)
	case errors.Is(err, fs.ErrNotExist):
		r.Reason = "would be made"
	case err != nil:
		r.Outcome, r.Err = Failed, err
	}
	return r
}

// dryRunMigrate is what migrating p, not yet in the pool, would do.
func (c *Copier) dryRunMigrate(p string, st cephfs.Stat, from string) Report {
	r := Report{Src: p, Dst: p, Outcome: Copied, DryRun: true,
		Reason: fmt.Sprintf("would move from pool %s to %s", from, c.opts.Pool)}
	r.Result.Bytes = st.Size
	return r
}
