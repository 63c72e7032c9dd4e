package fscopy

import (
	"context"
	"path"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/rados"
)

// Hooks are the points in a copy where a test acts, as another client
// or a crash would.
type Hooks = hooks

// NewWithHooks is New with h installed.
func NewWithHooks(engine *radoscp.Engine, conn *rados.Conn, fs *cephfs.FS, opts Options, report func(Report), h Hooks) *Copier {
	c := New(engine, conn, fs, opts, report)
	c.hooks = h
	return c
}

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

// IsStagingName is isStagingName.
var IsStagingName = isStagingName
