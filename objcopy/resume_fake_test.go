package objcopy

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/rados/faults"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
)

const srcSize = 8*(64<<10) + 1000 // nine objects, the last one short

// A copy into a striped object that fails at any point leaves a record
// and a published prefix of the source; --resume continues from that
// prefix (copying only what is left) and ends with the source's bytes and
// no record. Each case fails one store operation of the first copy.
func TestResumeAfterFault(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rule      faults.Rule
		published uint64
	}{
		{"replace fails, nothing written", faults.Rule{Kind: faults.Xattr, Nth: 1, Errno: syscall.EIO}, 0},
		{"first copy-from", faults.Rule{Kind: faults.Copy, Nth: 1, Errno: syscall.EIO}, 1 * 64 << 10},
		{"fourth copy-from", faults.Rule{Kind: faults.Copy, Nth: 4, Errno: syscall.EIO}, 4 * 64 << 10},
		{"seventh copy-from", faults.Rule{Kind: faults.Copy, Nth: 7, Errno: syscall.EIO}, 7 * 64 << 10},
		{"object 0 written through the client", faults.Rule{Kind: faults.Write, Object: layoutName("dst", 0), Nth: 1, Errno: syscall.EIO}, 0},
		{"final publish", faults.Rule{Kind: faults.Xattr, Nth: 2, Errno: syscall.EIO}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pools := newFakePools("a", "b")
			a, _ := pools.Pool("a", "")
			b, _ := pools.Pool("b", "")
			want := stripedSource(t, a, "src", srcSize)
			in := faults.New(1, tc.rule)
			pools.faults["b"] = in
			c := New(radoscp.NewEngine(nil, nil), pools, nil)
			req := wholeCopy(t, "striper:a/src", "striper:b/dst")
			o, err := c.Copy(context.Background(), req)
			if err == nil || in.Hits() != 1 || !errors.Is(err, store.ErrIO) {
				t.Fatalf("copy with %+v: %v after %d injected faults; want the injected EIO", tc.rule, err, in.Hits())
			}
			if o.CloseErr != nil {
				t.Fatalf("closing after the fault: %v", o.CloseErr)
			}
			meta, err := truncate.ReadStriperMeta(b, "dst")
			if err != nil {
				t.Fatal(err)
			}
			published := meta.Size
			if published != tc.published {
				t.Fatalf("published EOF %d after the fault, want %d (the objects before the failed one)", published, tc.published)
			}
			if published >= srcSize {
				t.Fatalf("published EOF %d after a failed copy of %d bytes", published, srcSize)
			}
			if got := readStriped(t, b, "dst"); !bytes.Equal(got, want[:published]) {
				t.Fatalf("the published prefix [0, %d) is not the source's", published)
			}
			if o.Ran && record(t, b, "dst") == nil {
				t.Fatal("no record left by the interrupted copy: --resume could not check it")
			}

			delete(pools.faults, "b")
			req.Resume = true
			o, err = c.Copy(context.Background(), req)
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			if o.Length != srcSize-published {
				t.Errorf("resume copied %d bytes, want the %d left past the published EOF %d", o.Length, srcSize-published, published)
			}
			if got := readStriped(t, b, "dst"); !bytes.Equal(got, want) {
				t.Fatalf("after resume the destination (%d bytes) is not the source (%d bytes)", len(got), len(want))
			}
			if r := record(t, b, "dst"); r != nil {
				t.Fatalf("record %q left after a complete copy", r)
			}
		})
	}
}

// A resume whose source changed since the interrupted copy began is
// refused (InvalidError), writing nothing.
func TestResumeRefusesChangedSource(t *testing.T) {
	pools := newFakePools("a", "b")
	a, _ := pools.Pool("a", "")
	b, _ := pools.Pool("b", "")
	stripedSource(t, a, "src", srcSize)
	pools.faults["b"] = faults.New(1, faults.Rule{Kind: faults.Copy, Nth: 4, Errno: syscall.EIO})
	c := New(radoscp.NewEngine(nil, nil), pools, nil)
	req := wholeCopy(t, "striper:a/src", "striper:b/dst")
	if _, err := c.Copy(context.Background(), req); err == nil {
		t.Fatal("the faulted copy succeeded")
	}
	delete(pools.faults, "b")
	before := readStriped(t, b, "dst")
	rec := record(t, b, "dst")
	if err := a.Write(layoutName("src", 5), []byte("changed"), 0); err != nil {
		t.Fatal(err)
	}
	req.Resume = true
	_, err := c.Copy(context.Background(), req)
	var inv *InvalidError
	if !errors.As(err, &inv) {
		t.Fatalf("resume from a changed source: %v, want an InvalidError", err)
	}
	if got := readStriped(t, b, "dst"); !bytes.Equal(got, before) {
		t.Fatal("a refused resume changed the destination")
	}
	if got := record(t, b, "dst"); !bytes.Equal(got, rec) {
		t.Fatalf("a refused resume changed the record: %q, was %q", got, rec)
	}
}

// cancelAfter cancels a copy once n copy-froms have finished.
type cancelAfter struct {
	radoscp.NopObserver
	n      atomic.Int64
	after  int64
	cancel context.CancelFunc
}

func (c *cancelAfter) CopyDone(time.Duration, uint64, error) {
	if c.n.Add(1) == c.after {
		c.cancel()
	}
}

// A resumed copy that is interrupted again says to continue with the
// command as it was given: --resume checks the record against the
// original range, so a command with the range moved past the EOF would
// be refused.
func TestResumeInterruptedSaysTheSameCommand(t *testing.T) {
	pools := newFakePools("a", "b")
	a, _ := pools.Pool("a", "")
	stripedSource(t, a, "src", srcSize)
	pools.faults["b"] = faults.New(1, faults.Rule{Kind: faults.Copy, Nth: 4, Errno: syscall.EIO})
	req := wholeCopy(t, "striper:a/src", "striper:b/dst")
	if _, err := New(radoscp.NewEngine(nil, nil), pools, nil).Copy(context.Background(), req); err == nil {
		t.Fatal("the faulted copy succeeded")
	}
	delete(pools.faults, "b")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req.Resume = true
	_, err := New(radoscp.NewEngine(&cancelAfter{after: 1, cancel: cancel}, nil), pools, nil).Copy(ctx, req)
	const want = "continue with: radoscp cp --resume striper:a/src striper:b/dst"
	var partial *PartialError
	if !errors.As(err, &partial) || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("interrupted resume: %v; want a PartialError ending %q", err, want)
	}
	req.Resume = true
	if _, err := New(radoscp.NewEngine(nil, nil), pools, nil).Copy(context.Background(), req); err != nil {
		t.Fatalf("the command it says: %v", err)
	}
}
