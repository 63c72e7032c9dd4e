package truncate_test

import (
	"bytes"
	"maps"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados/fake"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
)

// noLockClass refuses locks as the OSD does a client whose caps lack the
// lock class, after writes it allows.
type noLockClass struct{ *fake.Pool }

func (p noLockClass) LockExclusive(oid, _, _, _ string, _ time.Duration, _ bool) (store.LockResult, error) {
	return 0, &store.Error{Op: "lock", Object: p.Ref(oid), Errno: syscall.EPERM}
}

// An open refused the copy lock for the caps leaves nothing it made (the
// raw lock object, a new striped object's object 0) and leaves an object
// that was there as it was.
func TestOpenWithoutLockClassLeavesNothing(t *testing.T) {
	l := layout.Layout{StripeUnit: 1 << 20, StripeCount: 1, ObjectSize: 1 << 20}
	open := map[string]func(store.Objects) error{
		"raw": func(p store.Objects) error { _, err := truncate.OpenRaw(p, l, "d", 0); return err },
		"striper": func(p store.Objects) error {
			_, err := truncate.OpenStriperWith(p, "d", l, truncate.StriperOptions{})
			return err
		},
	}
	objects := map[string]string{"raw": truncate.RawLockObject("d"), "striper": layout.Striper("d").ObjectName(0)}
	for _, kind := range []string{"raw", "striper"} {
		oid := objects[kind]
		t.Run(kind+"/new", func(t *testing.T) {
			p := fake.New().Pool("b")
			err := open[kind](noLockClass{p})
			if store.ErrnoOf(err) != syscall.EPERM {
				t.Fatalf("error %v, want EPERM", err)
			}
			if p.Has(oid) {
				t.Errorf("left %s", oid)
			}
		})
		t.Run(kind+"/existing", func(t *testing.T) {
			p := fake.New().Pool("b")
			x := map[string][]byte{"radoscp.lock-object": []byte("d")}
			if kind == "striper" {
				x = map[string][]byte{"striper.layout.object_size": []byte("1048576"), "striper.layout.stripe_unit": []byte("1048576"),
					"striper.layout.stripe_count": []byte("1"), "striper.size": []byte("0")}
			}
			if err := p.Create(oid, x); err != nil {
				t.Fatal(err)
			}
			err := open[kind](noLockClass{p})
			if store.ErrnoOf(err) != syscall.EPERM {
				t.Fatalf("error %v, want EPERM", err)
			}
			if got, err := p.Xattrs(oid); err != nil || !maps.EqualFunc(got, x, bytes.Equal) {
				t.Errorf("the existing %s is now %q, %v; want %q", oid, got, err, x)
			}
		})
	}
}

// rivalLocksAfterCheck is noLockClass whose Xattrs, the refused open's
// check that its object is still as made, lets a rival with the caps take
// the copy lock right after answering: between the check and the removal.
type rivalLocksAfterCheck struct {
	noLockClass
	rival *fake.Pool
}

func (p rivalLocksAfterCheck) Xattrs(oid string) (map[string][]byte, error) {
	x, err := p.noLockClass.Xattrs(oid)
	if res, lerr := p.rival.LockExclusive(oid, truncate.CopyLockName, "rival", "", time.Minute, false); lerr != nil || res != store.Locked {
		panic("the rival could not lock")
	}
	return x, err
}

// A refused open removes what it made only as it made it, in the removing
// op: a rival that locks the object between the check and the removal
// keeps it, lock and all.
func TestOpenWithoutLockClassLeavesARivalsLockedObject(t *testing.T) {
	l := layout.Layout{StripeUnit: 1 << 20, StripeCount: 1, ObjectSize: 1 << 20}
	p := fake.New().Pool("b")
	_, err := truncate.OpenRaw(rivalLocksAfterCheck{noLockClass{p}, p}, l, "d", 0)
	if store.ErrnoOf(err) != syscall.EPERM {
		t.Fatalf("error %v, want EPERM", err)
	}
	oid := truncate.RawLockObject("d")
	if !p.Has(oid) {
		t.Fatalf("removed %s, which a rival had locked", oid)
	}
	if ls, err := p.Lockers(oid, truncate.CopyLockName); err != nil || len(ls) != 1 || ls[0].Cookie != "rival" {
		t.Errorf("lockers %v, %v; want the rival's", ls, err)
	}
}
