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
// Only the times are set then, and only on a file no other client changed
// since it was put in place (placed.untouched, against the inode's stat
// right after the rename): settling must not undo another client's chmod,
// chown or write made in the meantime.
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

// settle holds dst (inode ino), just renamed into place with the mode,
// owner, size and times of st, every object written before at, until its
// write range is gone from the MDS (see above), in the background.
// settled waits for every file settle was given.
func (c *Copier) settle(ctx context.Context, dst string, ino uint64, st cephfs.Stat, at time.Time) {
	if c.opts.NoPreserve {
		return // the times are the copy's own: an MDS recovery keeps them near enough
	}
	c.settleThen(ctx, dst, st, at, func(left cephfs.Stat, _ time.Time) {
		c.remember(placed{dst: dst, ino: ino, src: st, left: left})
		c.hooks.afterSettle(dst)
	})
}

// settleThen settles dst, left with the metadata of st and its objects
// all written before at, in the background and, if that succeeded, runs
// then (nil for nothing) with what it left of the file: its stat after
// the times were set, and when. A file another client changed since it
// was left is left alone (see placed.untouched), and then does not run. It takes the
// file's stat before it returns: call it right after the file was left.
func (c *Copier) settleThen(ctx context.Context, dst string, st cephfs.Stat, at time.Time, then func(left cephfs.Stat, at time.Time)) {
	hold, err := c.fs.Ref(dst)
	if err != nil {
		c.settleFailed(dst, err)
		return
	}
	// What this copy left, before any other client can have had it:
	// the baseline a change by another is found against.
	left, err := hold.Stat()
	if err != nil {
		hold.Release()
		c.settleFailed(dst, err)
		return
	}
	p := placed{dst: dst, ino: left.Ino, src: st, left: left, at: at}
	c.settling.Add(1)
	go func() {
		defer c.settling.Done()
		defer hold.Release()
		changed, err := c.settleHeld(ctx, hold, &p)
		if err != nil {
			c.settleFailed(dst, err)
			return
		}
		if !changed && then != nil {
			then(p.left, p.at)
		}
	}()
}

// settleHeld waits until the client gave back its write caps on p's
// inode, then sets its times once more, through the MDS, unless another
// client changed the file since it was left (changed, and nothing is
// set); once it set them it records in p what it left now.
func (c *Copier) settleHeld(ctx context.Context, hold *cephfs.InodeRef, p *placed) (bool, error) {
	deadline := time.Now().Add(settleLimit)
	recheck := time.Now().Add(settleRecheck)
	for {
		held, err := c.fs.HoldsWriteCaps(p.dst)
		if errors.Is(err, fs.ErrNotExist) {
			break // renamed or removed since: the inode is judged by its stat
		}
		if err != nil {
			return false, err
		}
		if !held {
			break
		}
		if time.Now().After(recheck) {
			// Write caps granted again after the close (a hard link
			// to the file does that): make the client look at them.
			if err := hold.Recheck(); err != nil {
				return false, err
			}
			recheck = time.Now().Add(settleRecheck)
		}
		if time.Now().After(deadline) {
			c.settlesLetGo.Add(1)
			return false, nil // let go as it is; its times are set
		}
		select {
		case <-ctx.Done():
			return false, nil
		case <-time.After(settlePoll):
		}
	}
	now, err := hold.Stat()
	if err == nil {
		if ok, _ := p.untouched(now); !ok {
			c.settlesLeft.Add(1)
			return true, nil // another client's change: not undone
		}
		// The times only: a recovery moves nothing else, and setting
		// the mode or owner again could undo another client's chmod
		// made since the stat.
		err = hold.SetTimes(p.src.Atime, p.src.Mtime)
	}
	if err == nil {
		err = hold.Sync()
	}
	if err == nil {
		p.left, err = hold.Stat()
		p.at = time.Now()
	}
	if errors.Is(err, fs.ErrNotExist) || store.ErrnoOf(err) == syscall.ESTALE {
		return false, nil // removed since: no times to keep
	}
	return false, err
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
