package truncate

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/radoscp/radoscp/store"
)

// CopyLockName is the exclusive cls_lock a copy holds on its destination
// while it runs, so that two copies never write one destination at once.
const CopyLockName = "radoscp.copy"

// LockDuration is how long a copy's lock outlives its last renewal: a
// killed copy's lock expires this long after it died. A live copy renews
// it every LockDuration/3.
const LockDuration = 30 * time.Second

// leaseMargin is how long before the OSD could let its lock expire a copy
// stops writing: the lock is its own for LockDuration from when the OSD
// took a renewal, which is after the renewal was sent; the copy counts
// from the sending, less this margin for the clocks' drift.
const leaseMargin = LockDuration / 6

// lockClock is the clock copy locks time their leases by; tests set it
// before taking a lock.
var lockClock = time.Now

// ErrLockLost is a copy that stopped writing because its lock may no
// longer be its own (errors.Is): a renewal was refused, or none was
// confirmed for so long that the lock may have expired (the process was
// paused, or the OSDs did not answer), and another copy may have taken it.
var ErrLockLost = errors.New("lost the copy's lock")

// Holder is who holds a copy lock, as its cookie says: the host, pid and
// start of the radoscp process that took it.
type Holder struct {
	Host   string
	PID    int
	Since  time.Time
	Client string // the cluster client, "client.4123"
	Cookie string
}

func (h Holder) String() string {
	if h.PID == 0 {
		return fmt.Sprintf("%s (cookie %q), not a radoscp copy", h.Client, h.Cookie)
	}
	return fmt.Sprintf("radoscp pid %d on host %s since %s (%s)", h.PID, h.Host, h.Since.Format(time.RFC3339), h.Client)
}

// HeldError is a destination whose copy lock another live copy holds.
type HeldError struct {
	Object string // pool[/ns]/object the lock is on
	Holder Holder
	Local  bool // the holder is on this host and running
}

// ErrHeld matches a HeldError with errors.Is.
var ErrHeld = errors.New("held by another copy")

func (e *HeldError) Error() string {
	why := "it expires " + LockDuration.String() + " after that copy stops renewing it (if it is dead)"
	if e.Local {
		why = "that process is running"
	}
	return fmt.Sprintf("being copied into by %s: lock %s on %s is held; %s", e.Holder, CopyLockName, e.Object, why)
}

func (e *HeldError) Is(target error) bool { return target == ErrHeld }

// lockCaps says which caps a lock needs, for an EPERM.
const lockCaps = "cephx caps lack the lock class on the destination pool: grant `allow pool POOL class lock` (or `allow rwx pool=POOL`)"

// CopyLock is an exclusive cls_lock with a duration, renewed in the
// background until Release; see CopyLockName. Take it with TakeCopyLock.
type CopyLock struct {
	objs   store.Objects
	oid    string
	name   string
	cookie string
	tag    string
	shared bool
	// TookOver is the dead copy whose lock was broken to take this one.
	TookOver *Holder

	stop chan struct{}
	done chan struct{}
	now  func() time.Time // time.Now; a test's clock

	mu        sync.Mutex
	confirmed time.Time // when the last take or renewal the OSD granted was sent
	lost      error
}

// TakeCopyLock takes the exclusive lock CopyLockName on oid (creating oid
// if it is missing), with a cookie naming this process. A lock held by a
// radoscp process of this host that is gone is broken and taken over;
// one held by a live copy, or by one on another host (which cannot be
// checked), gives a *HeldError. The lock is renewed every
// LockDuration/3 until Release.
func TakeCopyLock(objs store.Objects, oid string) (*CopyLock, error) {
	l := &CopyLock{objs: objs, oid: oid, name: CopyLockName, cookie: newLockCookie(), now: lockClock}
	p := objs
	for attempt := 0; ; attempt++ {
		sent := l.now()
		res, err := p.LockExclusive(oid, l.name, l.cookie, l.desc(), LockDuration, false)
		if store.ErrnoOf(err) == syscall.EPERM {
			return nil, fmt.Errorf("%w (%s)", err, lockCaps)
		}
		if err != nil {
			return nil, err
		}
		if res == store.Locked {
			l.confirmed = sent
			break
		}
		lockers, err := p.Lockers(oid, l.name)
		if err != nil {
			return nil, err
		}
		if len(lockers) == 0 && attempt < 3 {
			continue // released or expired meanwhile
		}
		if len(lockers) == 0 {
			return nil, fmt.Errorf("lock %s on %s: busy, but nobody holds it", l.name, objs.Ref(oid))
		}
		h := parseLockCookie(lockers[0].Cookie)
		h.Client = lockers[0].Client
		if !deadHere(h) || attempt >= 3 {
			return nil, &HeldError{Object: objs.Ref(oid), Holder: h, Local: onThisHost(h)}
		}
		if _, err := p.BreakLock(oid, l.name, lockers[0]); err != nil {
			return nil, fmt.Errorf("taking over the lock of dead %s: %w", h, err)
		}
		l.TookOver = &h
	}
	l.start()
	return l, nil
}

// takeSharedLock takes shared lock name with tag on oid for LockDuration
// and renews it like a copy lock: libradosstriper's striper.lock, which
// its own writers and `rados --striper rm` respect.
func takeSharedLock(objs store.Objects, oid, name, tag string) (*CopyLock, error) {
	l := &CopyLock{objs: objs, oid: oid, name: name, tag: tag, shared: true, cookie: newLockCookie(), now: lockClock}
	sent := l.now()
	res, err := objs.LockShared(oid, name, l.cookie, tag, l.desc(), LockDuration, false)
	if store.ErrnoOf(err) == syscall.EPERM {
		return nil, fmt.Errorf("%w (%s)", err, lockCaps)
	}
	if err != nil {
		return nil, err
	}
	if res != store.Locked {
		return nil, fmt.Errorf("lock %s on %s: held exclusively by another client (a libradosstriper truncate or remove in progress)", name, objs.Ref(oid))
	}
	l.confirmed = sent
	l.start()
	return l, nil
}

func (l *CopyLock) desc() string { return "radoscp copy " + l.cookie }

func (l *CopyLock) start() {
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	go l.renew()
}

// lease is until when the lock is certainly still the copy's: the OSD
// took or renewed it after the confirmed request was sent. l.mu is held.
func (l *CopyLock) lease() time.Time { return l.confirmed.Add(LockDuration - leaseMargin) }

// renew renews the lock every LockDuration/3 while its lease runs. A
// renewal the OSD refuses (someone else holds the lock: it expired and
// was taken) loses it; so does a lease that ran out before a renewal was
// confirmed: a renewal sent then could take the lock afresh, after another
// copy held it and wrote, so none is sent.
func (l *CopyLock) renew() {
	defer close(l.done)
	t := time.NewTicker(LockDuration / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		if l.Held() != nil {
			return
		}
		sent := l.now()
		p := l.objs
		var res store.LockResult
		var err error
		if l.shared {
			res, err = p.LockShared(l.oid, l.name, l.cookie, l.tag, l.desc(), LockDuration, true)
		} else {
			res, err = p.LockExclusive(l.oid, l.name, l.cookie, l.desc(), LockDuration, true)
		}
		l.mu.Lock()
		switch {
		case l.lost != nil:
		case err == nil && res == store.Locked && sent.Before(l.lease()):
			l.confirmed = sent
		case err == nil && res == store.Locked:
			// Sent after the lease had run out (a pause between
			// the check and the send): held now, but perhaps not
			// all along. Held has said so already, or will.
		case err == nil:
			l.lost = fmt.Errorf("%w: lock %s on %s was taken by another client", ErrLockLost, l.name, l.objs.Ref(l.oid))
		default:
			// Tried again at the next tick, while the lease runs.
		}
		l.mu.Unlock()
	}
}

// Held reports nil while the lock is certainly the copy's, and why not
// once it may not be: a renewal was refused, or the lease of the last
// confirmed one has run out. Then it stays lost, and the copy must write
// nothing more: not a copy, not its metadata, not a cut-back, since
// another copy may be writing the destination. A check is only as good
// as the instant it is made: a process paused between Held and its write
// writes late.
func (l *CopyLock) Held() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now := l.now(); l.lost == nil && !now.Before(l.lease()) {
		l.lost = fmt.Errorf("%w: lock %s on %s was last confirmed for %s from %s, and that ran out %s ago (was this process paused, or the OSDs unreachable?); another copy may have taken it since, so this one writes nothing more",
			ErrLockLost, l.name, l.objs.Ref(l.oid), LockDuration, l.confirmed.Format(time.TimeOnly),
			now.Sub(l.lease()).Round(time.Second))
	}
	return l.lost
}

// Release stops renewing and unlocks; with remove, the lock's object is
// removed in the same op (for a lock object of its own).
func (l *CopyLock) Release(remove bool) error {
	close(l.stop)
	<-l.done
	p := l.objs
	if remove {
		err := p.UnlockAndRemove(l.oid, l.name, l.cookie)
		if errors.Is(err, store.ErrNotFound) {
			return nil // no longer ours: left to its holder
		}
		return err
	}
	return p.Unlock(l.oid, l.name, l.cookie)
}

// Cookies are "radoscp/HOST/PID/UNIXSECONDS/RANDOM", so that a rival copy
// can say who holds the lock and whether that process still exists.
func newLockCookie() string {
	host, _ := os.Hostname()
	host = strings.ReplaceAll(host, "/", "_")
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("radoscp/%s/%d/%d/%s", host, os.Getpid(), time.Now().Unix(), hex.EncodeToString(b[:]))
}

func parseLockCookie(c string) Holder {
	h := Holder{Cookie: c}
	f := strings.Split(c, "/")
	if len(f) != 5 || f[0] != "radoscp" {
		return h
	}
	pid, err1 := strconv.Atoi(f[2])
	sec, err2 := strconv.ParseInt(f[3], 10, 64)
	if err1 != nil || err2 != nil || pid <= 0 {
		return h
	}
	h.Host, h.PID, h.Since = f[1], pid, time.Unix(sec, 0)
	return h
}

func onThisHost(h Holder) bool {
	host, _ := os.Hostname()
	return h.PID != 0 && h.Host == strings.ReplaceAll(host, "/", "_")
}

// deadHere reports whether h is a radoscp process of this host that no
// longer runs: its pid is gone, or belongs to a process started after the
// lock was taken (the pid was reused).
func deadHere(h Holder) bool {
	if !onThisHost(h) {
		return false
	}
	if err := syscall.Kill(h.PID, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	started, ok := processStart(h.PID)
	return ok && started.After(h.Since.Add(2*time.Second))
}

// processStart is when process pid started, from /proc (field 22 of
// /proc/PID/stat, in clock ticks since boot; USER_HZ is 100 on Linux).
func processStart(pid int) (time.Time, bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return time.Time{}, false
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return time.Time{}, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	boot, ok := bootTime()
	if !ok {
		return time.Time{}, false
	}
	return boot.Add(time.Duration(ticks) * time.Second / 100), true
}

func bootTime() (time.Time, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			sec, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, false
			}
			return time.Unix(sec, 0), true
		}
	}
	return time.Time{}, false
}
