package faults

import (
	"math/rand/v2"
	"sync"
	"syscall"
	"time"

	"github.com/radoscp/radoscp/rados"
)

// Kind is the class of operation a rule matches.
type Kind uint8

// Operation kinds. Copy failures are reported by Wait, as the OSD would;
// SubmitCopy failures by Submit, as a client-side failure would.
const (
	Copy Kind = iota
	SubmitCopy
	Read
	Write
	Stat
	Truncate
	Remove
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
		return &rados.Error{Op: op, Object: ref, Errno: errno, Detail: "injected"}
	}
	return nil
}

// Wrap decorates objs with the injector's rules.
func (in *Injector) Wrap(objs rados.Objects) rados.Objects {
	return &objects{Objects: objs, in: in}
}

type objects struct {
	rados.Objects
	in *Injector
}

func (o *objects) Stat(oid string) (rados.ObjectStat, error) {
	if err := o.in.fail(Stat, "stat", o.Ref(oid), oid); err != nil {
		return rados.ObjectStat{}, err
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
func (o *objects) Submit(dstOid string, src rados.Objects, srcOid string, opts rados.CopyOptions) (rados.Pending, error) {
	ref := src.Ref(srcOid)
	if errno, delay := o.in.check(SubmitCopy, dstOid); errno != 0 || delay > 0 {
		time.Sleep(delay)
		if errno != 0 {
			return nil, &rados.Error{Op: "copy", Object: ref, Target: o.Ref(dstOid), Errno: errno, Detail: "injected at submit"}
		}
	}
	errno, delay := o.in.check(Copy, dstOid)
	if errno != 0 {
		// The OSD never applies a failed copy-from, so neither do we.
		return &failed{err: &rados.Error{Op: "copy", Object: ref, Target: o.Ref(dstOid), Errno: errno, Detail: "injected"}, delay: delay}, nil
	}
	p, err := o.Objects.Submit(dstOid, src, srcOid, opts)
	if err != nil || delay == 0 {
		return p, err
	}
	return &delayed{Pending: p, until: time.Now().Add(delay), delay: delay}, nil
}

type failed struct {
	err   error
	delay time.Duration
}

func (f *failed) Wait() error {
	time.Sleep(f.delay)
	return f.err
}
func (f *failed) Latency() time.Duration { return f.delay }

type delayed struct {
	rados.Pending
	until time.Time
	delay time.Duration
}

func (d *delayed) Wait() error {
	err := d.Pending.Wait()
	time.Sleep(time.Until(d.until))
	return err
}
func (d *delayed) Latency() time.Duration { return d.Pending.Latency() + d.delay }
