package truncate_test

import (
	"errors"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados/fake"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
)

// countingPool records the metadata operations OpenRaw sends, each a
// round trip to an OSD, and can refuse creates as caps without write do.
type countingPool struct {
	*fake.Pool
	refuseCreate bool
	mu           sync.Mutex
	ops          []string
}

func (p *countingPool) note(op string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ops = append(p.ops, op)
}

func (p *countingPool) Create(oid string, x map[string][]byte) error {
	p.note("create")
	if p.refuseCreate {
		return &store.Error{Op: "create", Object: p.Ref(oid), Errno: syscall.EPERM}
	}
	return p.Pool.Create(oid, x)
}

func (p *countingPool) Stat(oid string) (store.ObjectStat, error) {
	p.note("stat")
	return p.Pool.Stat(oid)
}

func (p *countingPool) Xattrs(oid string) (map[string][]byte, error) {
	p.note("xattrs")
	return p.Pool.Xattrs(oid)
}

func (p *countingPool) LockExclusive(oid, name, cookie, desc string, d time.Duration, renew bool) (store.LockResult, error) {
	if !renew {
		p.note("lock")
	}
	return p.Pool.LockExclusive(oid, name, cookie, desc, d, renew)
}

// TestOpenRaw: a raw destination's lock object is made and locked in two
// round trips when it is missing (no stat first); one radoscp made
// (marked) is taken as it is, also by a client that may not create it;
// someone else's is refused unchanged; and a refused create of a missing
// one is the error.
func TestOpenRaw(t *testing.T) {
	l := layout.Layout{StripeUnit: 1 << 20, StripeCount: 1, ObjectSize: 1 << 20}
	lockObj := truncate.RawLockObject("d")
	for _, tc := range []struct {
		name         string
		before       func(p *fake.Pool)
		refuseCreate bool
		wantOps      []string
		wantErr      error
		wantErrno    syscall.Errno
	}{
		{name: "missing", wantOps: []string{"create", "lock"}},
		{name: "marked", before: func(p *fake.Pool) { mark(t, p, lockObj) },
			wantOps: []string{"create", "stat", "xattrs", "lock"}},
		{name: "marked-create-refused", before: func(p *fake.Pool) { mark(t, p, lockObj) }, refuseCreate: true,
			wantOps: []string{"create", "stat", "xattrs", "lock"}},
		{name: "foreign", before: func(p *fake.Pool) {
			if err := p.WriteFull(lockObj, []byte("user data")); err != nil {
				t.Fatal(err)
			}
		}, wantOps: []string{"create", "stat", "xattrs"}, wantErr: truncate.ErrForeignObject},
		{name: "missing-create-refused", refuseCreate: true,
			wantOps: []string{"create", "stat"}, wantErrno: syscall.EPERM},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &countingPool{Pool: fake.New().Pool("b"), refuseCreate: tc.refuseCreate}
			if tc.before != nil {
				tc.before(p.Pool)
			}
			r, err := truncate.OpenRaw(p, l, "d", 0)
			if !slices.Equal(p.ops, tc.wantOps) {
				t.Errorf("operations %q, want %q", p.ops, tc.wantOps)
			}
			switch {
			case tc.wantErr != nil || tc.wantErrno != 0:
				if err == nil {
					r.Close()
					t.Fatal("opened, want an error")
				}
				if tc.wantErr != nil && !errors.Is(err, tc.wantErr) || tc.wantErrno != 0 && store.ErrnoOf(err) != tc.wantErrno {
					t.Fatalf("error %v, want %v %v", err, tc.wantErr, tc.wantErrno)
				}
				if tc.name == "foreign" {
					buf := make([]byte, 64)
					n, _ := p.Read(lockObj, buf, 0)
					if ls, _ := p.Lockers(lockObj, truncate.CopyLockName); string(buf[:n]) != "user data" || len(ls) != 0 {
						t.Errorf("the foreign object changed: %q, lockers %v", buf[:n], ls)
					}
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			x, err := p.Pool.Xattrs(lockObj)
			if err != nil || string(x["radoscp.lock-object"]) != "d" {
				t.Errorf("lock object's mark %q, %v; want %q", x["radoscp.lock-object"], err, "d")
			}
			if ls, err := p.Lockers(lockObj, truncate.CopyLockName); err != nil || len(ls) != 1 {
				t.Errorf("lockers %v, %v; want this copy's", ls, err)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if p.Has(lockObj) {
				t.Error("Close left the lock object")
			}
		})
	}
}

// mark makes oid as an earlier copy left it: empty, marked as radoscp's.
func mark(t *testing.T, p *fake.Pool, oid string) {
	t.Helper()
	if err := p.Create(oid, map[string][]byte{"radoscp.lock-object": []byte("d")}); err != nil {
		t.Fatal(err)
	}
}
