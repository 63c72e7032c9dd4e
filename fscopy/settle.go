package fscopy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"time"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/store"
)

// Keeping a copied file's times across an MDS restart.
//
// A client that opens a file for writing gets a writable byte range on it
// from the MDS, journaled with the inode. After a copy the staging file is
// closed and renamed into place, and the client gives its write caps back
// lazily, seconds later; only then does the MDS journal the range's
// removal. If the MDS restarts (or fails over) in between, it replays the
// range, and the client reconnects with caps only for the inodes it still
// uses: it has none for the copied file. The MDS then "recovers" the file
// as one a dead writer left: it probes the file's objects and takes the
// newest object's mtime (the copy's own writes) as the file's mtime, over
// the source's mtime the copy had set. Seen in the MDS log as "client.N
// has range ... but no cap" and "RecoveryQueue::_recovered".
//
// So a reference is held on each copied file's inode (not an open file:
// the client must want no caps for it) until the client has given the
// write caps back; an MDS restart meanwhile finds the client still using
// the inode and recovers nothing. Then the times are set once more, now
// through the MDS, and the inode is synced, which waits until the MDS has
// journaled that change, and with it the range's removal that came before
// it. Only then is the reference dropped.
//
// That closes the window while the copy's own caps are out, not later
// ones: the MDS can give the client write caps, and a range, on the file
// again after it was let go, and an MDS restart then recovers it all the
// same. reconnect.go detects that case and sets the times again; what
// radoscp promises is that the files it put in place have their sources'
// times when the run ends.

// settlePoll is how often a held file's caps are looked at; settleLimit
// bounds the wait for the client to give them back (it does so within
// seconds; a file still not settled then is let go as it is).
const (
	settlePoll  = 100 * time.Millisecond
	settleLimit = 2 * time.Minute
)

// settleRecheck is how long a held file may keep write caps before the
// client is made to look at them again (InodeRef.Recheck): well past the
// 1 s the client takes to give them back (cephfs.Session.Options), so
// that a file whose caps are simply on their way back is not opened
// again.
const settleRecheck = 3 * time.Second

// settle holds dst, just renamed into place with the times of st, until
// its write range is gone from the MDS (see above), in the background.
// settled waits for every file settle was given.
func (c *Copier) settle(ctx context.Context, dst string, ino uint64, st cephfs.Stat) {
	if c.opts.NoPreserve {
		return // the times are the copy's own: an MDS recovery keeps them near enough
	}
	c.settleThen(ctx, dst, st, func() {
		c.remember(dst, ino, st)
		if c.opts.afterSettle != nil {
			c.opts.afterSettle(dst)
		}
	})
}

// settleThen settles dst in the background and, if that succeeded, runs
// then (nil for nothing). The re-check after an MDS reconnect settles
// again files that are remembered already, and so passes nil.
func (c *Copier) settleThen(ctx context.Context, dst string, st cephfs.Stat, then func()) {
	hold, err := c.fs.Ref(dst)
	if err != nil {
		c.settleFailed(dst, err)
		return
	}
	c.settling.Add(1)
	go func() {
		defer c.settling.Done()
		defer hold.Release()
		if err := c.settleHeld(ctx, dst, hold, st); err != nil {
			c.settleFailed(dst, err)
			return
		}
		if then != nil {
			then()
		}
	}()
}

func (c *Copier) settleHeld(ctx context.Context, dst string, hold *cephfs.InodeRef, st cephfs.Stat) error {
	deadline := time.Now().Add(settleLimit)
	recheck := time.Now().Add(settleRecheck)
	for {
		held, err := c.fs.HoldsWriteCaps(dst)
		if errors.Is(err, fs.ErrNotExist) {
			break // renamed or removed since: set the inode's times all the same
		}
		if err != nil {
			return err
		}
		if !held {
			break
		}
		if time.Now().After(recheck) {
			// Write caps granted again after the close (a hard link
			// to the file does that): make the client look at them.
			if err := hold.Recheck(); err != nil {
				return err
			}
			recheck = time.Now().Add(settleRecheck)
		}
		if time.Now().After(deadline) {
			c.settlesLetGo.Add(1)
			return nil // let go as it is; its times are set
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(settlePoll):
		}
	}
	err := hold.SetAttrs(attrsOf(st))
	if err == nil {
		err = hold.Sync()
	}
	if errors.Is(err, fs.ErrNotExist) || store.ErrnoOf(err) == syscall.ESTALE {
		return nil // removed since: no times to keep
	}
	return err
}

func (c *Copier) settleFailed(dst string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.settleErrs = append(c.settleErrs, Report{Src: dst, Dst: dst, Outcome: Failed,
		Err: fmt.Errorf("keep the times of cephfs:%s after its copy: %w", dst, err)})
}

// settled waits until every file given to settle is settled, checks
// their times again if the MDS sessions changed meanwhile (reconnect.go),
// and returns the failures, as reports, and how many files' times it set
// again.
func (c *Copier) settled(ctx context.Context) ([]Report, int) {
	c.settling.Wait()
	reset := c.recheckTimes(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	errs := c.settleErrs
	c.settleErrs = nil
	return errs, reset
}
