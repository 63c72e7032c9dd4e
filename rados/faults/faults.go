package faults

import (
	"math/rand/v2"
	"sync"
	"syscall"
	"time"

	"github.com/radoscp/radoscp/store"
)

// Kind is the class of operation a rule matches.
type Kind uint8

// Operation kinds. Copy failures are reported by Wait, as the OSD would;
// SubmitCopy failures by Submit, as a client-side failure would.
const (
	Copy Kind = iota
	SubmitCopy
	Read
	Write // writes, full writes and zeroing
	Stat
	Truncate
	Remove
	Xattr // setting, growing, resetting or removing an xattr
	Lock  // taking or renewing a lock
)

// Rule fails (or delays) the operations it matches. A rule with several
// conditions matches only when all of them hold.
type Rule struct {
	Kind Kind
	// Object, when set, matches only operations on this object name (the
	// destination, for copies).
	Object string
	// Nth, when positive, matches only the Nth operation of Kind (1-based)
	// that passes the Object filter.
	Nth int
	// Probability, when positive, matches each operation with that chance,
	// drawn from the injector's seeded generator.
	Probability float64
	// Errno is returned by matched operations; 0 only delays them.
	Errno syscall.Errno
	// Delay is added to matched operations.
	Delay time.Duration
}

// Injector holds the rules and counts the operations they saw.
type Injector struct {
	mu     sync.Mutex
	rules  []Rule
	counts []int
	rng    *rand.Rand
	hits   int
}

// New returns an injector with the given rules and random seed.
func New(seed uint64, rules ...Rule) *Injector {
	return &Injector{rules: rules, counts: make([]int, len(rules)), rng: rand.New(rand.NewPCG(seed, seed))}
}

// Hits is how many operations have been failed or delayed so far.
func (in *Injector) Hits() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.hits
}

// check returns the errno and delay for one operation.
func (in *Injector) check(kind Kind, oid string) (syscall.Errno, time.Duration) {
	in.mu.Lock()
	defer in.mu.Unlock()
	var errno syscall.Errno
	var delay time.Duration
	for i, r := range in.rules {
		if r.Kind != kind || (r.Object != "" && r.Object != oid) {
			continue
		}
		in.counts[i]++
		if r.Nth > 0 && in.counts[i] != r.Nth {
			continue
		}
		if r.Probability > 0 && in.rng.Float64() >= r.Probability {
			continue
		}
		in.hits++
		if errno == 0 {
			errno = r.Errno
		}
		delay += r.Delay
	}
	return errno, delay
}

func (in *Injector) fail(kind Kind, op, ref, oid string) error {
	errno, delay := in.check(kind, oid)
	time.Sleep(delay)
	if errno != 0 {
		return &store.Error{Op: op, Object: ref, Errno: errno, Detail: "injected"}
	}
	return nil
}

// Wrap decorates objs with the injector's rules.
func (in *Injector) Wrap(objs store.Objects) store.Objects {
	return &objects{Objects: objs, in: in}
}

type objects struct {
	store.Objects
	in *Injector
}

func (o *objects) Stat(oid string) (store.ObjectStat, error) {
	if err := o.in.fail(Stat, "stat", o.Ref(oid), oid); err != nil {
		return store.ObjectStat{}, err
	}
	return o.Objects.Stat(oid)
}

func (o *objects) Read(oid string, buf []byte, off uint64) (int, error) {
	if err := o.in.fail(Read, "read", o.Ref(oid), oid); err != nil {
		return 0, err
	}
	return o.Objects.Read(oid, buf, off)
}

func (o *objects) Write(oid string, data []byte, off uint64) error {
	if err := o.in.fail(Write, "write", o.Ref(oid), oid); err != nil {
		return err
	}
	return o.Objects.Write(oid, data, off)
}

func (o *objects) WriteFull(oid string, data []byte) error {
	if err := o.in.fail(Write, "write_full", o.Ref(oid), oid); err != nil {
		return err
	}
	return o.Objects.WriteFull(oid, data)
}

// Zero fails and is delayed as a write is.
func (o *objects) Zero(oid string, off, length uint64) error {
	if err := o.in.fail(Write, "zero", o.Ref(oid), oid); err != nil {
		return err
	}
	return o.Objects.Zero(oid, off, length)
}

func (o *objects) Truncate(oid string, size uint64) error {
	if err := o.in.fail(Truncate, "truncate", o.Ref(oid), oid); err != nil {
		return err
	}
	return o.Objects.Truncate(oid, size)
}

func (o *objects) Remove(oid string) error {
	if err := o.in.fail(Remove, "remove", o.Ref(oid), oid); err != nil {
		return err
	}
	return o.Objects.Remove(oid)
}

// Submit applies SubmitCopy rules at submission and Copy rules at
// completion: a Copy failure is sent for real first, like an OSD that ran
// the op and failed it, so what it might have written is really there.
func (o *objects) Submit(dstOid string, src store.Location, opts store.CopyOptions) (store.Pending, error) {
	ref := src.Pool + "/" + src.Oid
	if errno, delay := o.in.check(SubmitCopy, dstOid); errno != 0 || delay > 0 {
		time.Sleep(delay)
		if errno != 0 {
			return nil, &store.Error{Op: "copy", Object: ref, Target: o.Ref(dstOid), Errno: errno, Detail: "injected at submit"}
		}
	}
	errno, delay := o.in.check(Copy, dstOid)
	if errno != 0 {
		// The OSD never applies a failed copy-from, so neither do we.
		return newFailed(&store.Error{Op: "copy", Object: ref, Target: o.Ref(dstOid), Errno: errno, Detail: "injected"}, delay), nil
	}
	p, err := o.Objects.Submit(dstOid, src, opts)
	if err != nil || delay == 0 {
		return p, err
	}
	return newDelayed(p, delay), nil
}

// failed is a copy the injector failed: it completes after its delay.
type failed struct {
	err   error
	delay time.Duration
	ready chan struct{}
}

func newFailed(err error, delay time.Duration) *failed {
	f := &failed{err: err, delay: delay, ready: make(chan struct{})}
	time.AfterFunc(delay, func() { close(f.ready) })
	return f
}

func (f *failed) Ready() <-chan struct{} { return f.ready }
func (f *failed) Wait() error {
	<-f.ready
	return f.err
}
func (f *failed) Latency() time.Duration { return f.delay }
func (f *failed) CopiedVersion() uint64  { return 0 }

// delayed is a real copy whose completion the injector holds back.
type delayed struct {
	store.Pending
	delay time.Duration
	ready chan struct{}
}

func newDelayed(p store.Pending, delay time.Duration) *delayed {
	d := &delayed{Pending: p, delay: delay, ready: make(chan struct{})}
	until := time.Now().Add(delay)
	go func() {
		<-p.Ready()
		time.Sleep(time.Until(until))
		close(d.ready)
	}()
	return d
}

func (d *delayed) Ready() <-chan struct{} { return d.ready }
func (d *delayed) Wait() error {
	<-d.ready
	return d.Pending.Wait()
}
func (d *delayed) Latency() time.Duration { return d.Pending.Latency() + d.delay }

func (o *objects) SetXattr(oid, name string, value []byte) error {
	if err := o.in.fail(Xattr, "setxattr "+name, o.Ref(oid), oid); err != nil {
		return err
	}
	return o.Objects.SetXattr(oid, name, value)
}

func (o *objects) RmXattr(oid, name string) error {
	if err := o.in.fail(Xattr, "rmxattr "+name, o.Ref(oid), oid); err != nil {
		return err
	}
	return o.Objects.RmXattr(oid, name)
}

func (o *objects) GrowXattr(oid, name string, n uint64) (bool, error) {
	if err := o.in.fail(Xattr, "grow xattr "+name, o.Ref(oid), oid); err != nil {
		return false, err
	}
	return o.Objects.GrowXattr(oid, name, n)
}

func (o *objects) ResetXattr(oid, name string, expect uint64, alsoName string, alsoValue []byte) (bool, error) {
	if err := o.in.fail(Xattr, "reset xattr "+name, o.Ref(oid), oid); err != nil {
		return false, err
	}
	return o.Objects.ResetXattr(oid, name, expect, alsoName, alsoValue)
}

func (o *objects) LockExclusive(oid, name, cookie, desc string, d time.Duration, renew bool) (store.LockResult, error) {
	if err := o.in.fail(Lock, "lock "+name, o.Ref(oid), oid); err != nil {
		return 0, err
	}
	return o.Objects.LockExclusive(oid, name, cookie, desc, d, renew)
}

func (o *objects) LockShared(oid, name, cookie, tag, desc string, d time.Duration, renew bool) (store.LockResult, error) {
	if err := o.in.fail(Lock, "lock "+name, o.Ref(oid), oid); err != nil {
		return 0, err
	}
	return o.Objects.LockShared(oid, name, cookie, tag, desc, d, renew)
}
