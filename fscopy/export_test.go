package fscopy

import (
	"context"
	"path"
)

// SetAfterWalkStat installs a hook that runs right after a tree copy's
// walk has stat'ed a listed regular file.
func SetAfterWalkStat(o *Options, f func(src string)) { o.afterWalkStat = f }

// SetAfterCopy installs a hook that runs between a file's copy and the
// check that its source did not change.
func SetAfterCopy(o *Options, f func(src string)) { o.afterCopy = f }

// SetAfterRename installs a hook that runs right after a file is renamed
// into place.
func SetAfterRename(o *Options, f func(dst string)) { o.afterRename = f }

// SetAfterSettle installs a hook that runs once a file put in place is
// settled and let go.
func SetAfterSettle(o *Options, f func(dst string)) { o.afterSettle = f }

// SettlesLetGo counts the files c let go still holding write caps, at the
// settling's time limit (settle.go).
func SettlesLetGo(c *Copier) int64 { return c.settlesLetGo.Load() }

// WaitSettled waits until every file c put in place is settled: a test
// that calls CopyFile (which leaves the settling running, for Copy and
// Migrate to wait for) must not unmount before.
func WaitSettled(c *Copier) { c.settling.Wait() }

// SettlesLeft counts the files c's settling left alone because another
// client changed them after they were put in place.
func SettlesLeft(c *Copier) int64 { return c.settlesLeft.Load() }

// TargetDir is a target directory the deletion pass holds by inode.
type TargetDir = targetDir

// DeleteIn runs the deletion pass of a tree copy of src, complete, into
// the target directory dst, through wrap(dst): a test acts between the
// pass's steps there, as another client would.
func DeleteIn(c *Copier, src, dst string, wrap func(TargetDir) TargetDir) (Summary, error) {
	var sum Summary
	root, err := c.fs.Ref(dst)
	if err != nil {
		return sum, err
	}
	defer root.Release()
	t := &treeCopy{c: c, sum: &sum, root: path.Clean(src), inFlight: newInFlight(1)}
	t.deleteIn(context.Background(), src, wrap(refDir{root}))
	return sum, sum.deletesLeftErr(c.opts.MaxDelete)
}
