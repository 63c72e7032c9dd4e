package fscopy

import (
	"context"
	"errors"
	"io/fs"
	"sync"
	"time"

	"github.com/radoscp/radoscp/cephfs"
)

// Checking the copies' times again after an MDS reconnect.
//
// Settling (settle.go) lets a file go once the client has given back its
// write caps and the times are set and synced. Yet a migrate through a
// failover (CI) kept a file with its copy's write time as mtime, and files
// settled and let go, none open, were seen with Fw and Fb in the client
// seconds later: the MDS issues the caps a client "wants" and "likes"
// with any reply, and a client tells the MDS that it wants less only when
// it has caps to give back. An MDS gives a client that holds write caps
// a writable range on the file, journaled. If the MDS
// restarts or fails over while it does, the client, reconnecting, reports
// no caps for a file it no longer uses (it drops such inodes from its
// cache first), and the MDS recovers the file as a dead writer's: it moves
// the mtime forward to the newest object's, the copy's own write. Neither
// the client's caps nor the MDS's ranges can be held back through
// libcephfs, so this is detected instead: the copier notes which MDS
// daemons its client has sessions with when it starts, and when the
// run's files are settled, if they changed (a restart, a failover, a
// reconnect), it reads the times of every file it put in place within
// placedKeep and sets once more those an MDS recovery moved. A run can
// last far longer than placedKeep, so the sessions are also looked at
// during the run, every mdsWatchEvery as files are put in place: a change
// seen then keeps every file remembered at that moment to the end of the
// run (the suspects), whatever their age by then, and so does every file
// put in place within suspectAfter of that look (a file whose times were
// set while the new MDS was still recovering).

// placedKeep is how long a file put in place is remembered for that check.
// The MDS holds a client's range on a file only while the client holds (or
// wants) write caps on it, and the client gives those back within seconds
// of the last use, or when it trims the inode from its cache.
const placedKeep = 10 * time.Minute

// mdsWatchEvery is how often, at most, the MDS sessions are read during
// a run (a local admin socket command, no MDS request).
const mdsWatchEvery = 2 * time.Second

// suspectAfter is how long after a change of the MDS sessions is seen the
// files put in place are suspects too: an MDS's recoveries follow its
// reconnect phase within seconds.
const suspectAfter = time.Minute

// placed is a file settle put in place.
type placed struct {
	dst  string
	ino  uint64
	src  cephfs.Stat // its source, whose mode, owner, size and times it has
	left cephfs.Stat // its own stat when it was left so (its ctime then)
	at   time.Time   // when it was left so: times set (and synced)
}

// untouched says whether now, a fresh stat of p's file, shows it as this
// copy left it, or as an MDS recovery leaves such a file: the same
// inode, and its source's size, mode and owner, with either its source's
// mtime and the ctime it was left with, or an mtime a recovery moved
// (later than the source's, not later than when it was left: the newest
// object's) with the ctime unchanged or moved with it, or exactly as it
// was left (times not yet the source's). moved says the times are to be
// set again.
// Anything else is another client's change since (a chmod, chown, write,
// setxattr, touch), which radoscp must not undo.
func (p placed) untouched(now cephfs.Stat) (ok, moved bool) {
	s := p.src
	if now.Ino != p.ino || now.Size != s.Size || now.Perm() != s.Perm() || now.UID != s.UID || now.GID != s.GID {
		return false, false
	}
	if now.Mtime.Equal(s.Mtime) {
		return now.Ctime.Equal(p.left.Ctime), false
	}
	if now.Mtime.Equal(p.left.Mtime) && now.Ctime.Equal(p.left.Ctime) {
		// As left, with times still to set (a staging file kept
		// for a resume: its cut-back's truncate gave it an mtime of
		// its own, seen decades off on Ceph 16.2).
		return true, true
	}
	moved = now.Mtime.After(s.Mtime) && !now.Mtime.After(p.at)
	return moved && (now.Ctime.Equal(p.left.Ctime) || now.Ctime.Equal(now.Mtime)), moved
}

// placedLog remembers the files put in place, and the MDS daemons the
// client had sessions with when the copier started.
type placedLog struct {
	mu           sync.Mutex
	mds          string    // cephfs.FS.MDSInstances, or "" when it could not be read
	watched      time.Time // when mds was last read during the run
	changed      bool      // the sessions changed during the run (suspects kept)
	suspectUntil time.Time // files put in place before it are suspects
	// suspects are the files remembered when a change was seen during
	// the run, kept to its end; files are those since, for placedKeep.
	suspects, files []placed
	// sessions is the client's FS.MDSInstances, clock time.Now; tests
	// set their own.
	sessions func() (string, error)
	clock    func() time.Time
}

// noteMDS records the MDS daemons the client has sessions with now.
func (c *Copier) noteMDS() {
	if c.fs == nil {
		return
	}
	if c.placed.sessions == nil {
		c.placed.sessions, c.placed.clock = c.fs.MDSInstances, time.Now
	}
	now, _ := c.placed.sessions()
	c.placed.mu.Lock()
	c.placed.mds, c.placed.watched = now, c.placed.clock()
	c.placed.mu.Unlock()
}

// watchMDS, under placed.mu, reads the MDS sessions if mdsWatchEvery has
// passed since the last look, and if they changed keeps every file
// remembered so far as a suspect, to be re-checked at the end of the run.
func (c *Copier) watchMDS(now time.Time) {
	l := &c.placed
	if now.Sub(l.watched) < mdsWatchEvery || l.mds == "" {
		return
	}
	l.watched = now
	cur, err := l.sessions()
	if err != nil || cur == l.mds {
		return
	}
	l.mds, l.changed, l.suspectUntil = cur, true, now.Add(suspectAfter)
	l.suspects = append(l.suspects, l.files...)
	l.files = nil
}

// remember notes p, put in place and settled now.
func (c *Copier) remember(p placed) {
	now := c.placed.clock()
	p.at = now
	c.placed.mu.Lock()
	defer c.placed.mu.Unlock()
	c.watchMDS(now)
	n := 0
	for n < len(c.placed.files) && now.Sub(c.placed.files[n].at) > placedKeep {
		n++
	}
	if now.Before(c.placed.suspectUntil) {
		c.placed.suspects = append(c.placed.suspects, p)
		c.placed.files = c.placed.files[n:]
		return
	}
	c.placed.files = append(c.placed.files[n:], p)
}

// settledAgain records what a re-check's settling left of the file p
// names, so that a later round judges it against that.
func (c *Copier) settledAgain(p placed, left cephfs.Stat, at time.Time) {
	c.placed.mu.Lock()
	defer c.placed.mu.Unlock()
	for _, list := range [][]placed{c.placed.suspects, c.placed.files} {
		for i := range list {
			if list[i].dst == p.dst && list[i].ino == p.ino {
				list[i].left, list[i].at = left, at
			}
		}
	}
}

// recheckTimes, once every file is settled, sets again the times of the
// files an MDS recovery moved, if the client's MDS sessions changed since
// the copier started (see above), until they stay the same over a check
// (a few rounds at most; one when they cannot be read). It returns how
// many files it set again.
func (c *Copier) recheckTimes(ctx context.Context) int {
	if c.fs == nil || c.opts.NoPreserve {
		return 0
	}
	reset := 0
	for round := 0; round < 3; round++ {
		now, err := c.placed.sessions()
		c.placed.mu.Lock()
		same := err == nil && c.placed.mds != "" && now == c.placed.mds && !c.placed.changed
		c.placed.mds, c.placed.changed = now, false
		files := append(append([]placed(nil), c.placed.suspects...), c.placed.files...)
		c.placed.mu.Unlock()
		if same {
			break
		}
		for _, p := range files {
			if ctx.Err() != nil {
				return reset
			}
			moved, serr := c.recovered(p)
			if serr != nil {
				c.settleFailed(p.dst, serr)
				continue
			}
			if moved {
				// Still remembered: a later round looks at it again.
				c.settleThen(ctx, p.dst, p.src, p.at, func(left cephfs.Stat, at time.Time) { c.settledAgain(p, left, at) })
				reset++
			}
		}
		c.settling.Wait()
		if err != nil {
			break // no way to tell whether they changed again
		}
	}
	return reset
}

// recovered says whether p's mtime was moved by an MDS recovery, and
// nothing else changed it since (placed.untouched). A file removed or
// changed since is left alone.
func (c *Copier) recovered(p placed) (bool, error) {
	st, err := c.fs.Lstat(p.dst)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	ok, moved := p.untouched(st)
	return ok && moved, nil
}
