package objcopy

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/rados/faults"
	"github.com/radoscp/radoscp/store"
)

// interruptedCopy leaves on pool b striped object dst holding an
// interrupted copy of a srcSize-byte source a/big: a published prefix
// and a record saying the copy may have written up to srcSize.
func interruptedCopy(t *testing.T, pools *fakePools, c *Copier) {
	t.Helper()
	a, _ := pools.Pool("a", "")
	stripedSource(t, a, "big", srcSize)
	pools.faults["b"] = faults.New(1, faults.Rule{Kind: faults.Copy, Nth: 4, Errno: syscall.EIO})
	defer delete(pools.faults, "b")
	if _, err := c.Copy(context.Background(), wholeCopy(t, "striper:a/big", "striper:b/dst")); err == nil {
		t.Fatal("the faulted copy succeeded")
	}
}

// The striped finish cuts back what an earlier interrupted copy wrote
// past the new end; when that fails the copy fails (partial: its bytes
// are published) and keeps its record, whose dirty mark lets the next
// copy clean up; that copy then ends clean.
func TestFinishCutBackFault(t *testing.T) {
	pools := newFakePools("a", "b")
	a, _ := pools.Pool("a", "")
	b, _ := pools.Pool("b", "")
	c := New(radoscp.NewEngine(nil, nil), pools, nil)
	interruptedCopy(t, pools, c)
	want := stripedSource(t, a, "small", 2*64<<10)

	// Object 8 is past the small copy's end: the replace removes it
	// first, the finish's cut-back second.
	in := faults.New(1, faults.Rule{Kind: faults.Remove, Object: layoutName("dst", 8), Nth: 2, Errno: syscall.EIO})
	pools.faults["b"] = in
	req := wholeCopy(t, "striper:a/small", "striper:b/dst")
	_, err := c.Copy(context.Background(), req)
	var partial *PartialError
	if !errors.As(err, &partial) || !errors.Is(err, store.ErrIO) || in.Hits() != 1 || !strings.Contains(err.Error(), "removing what an interrupted copy left past EOF") {
		t.Fatalf("copy with the cut-back failing: %v after %d injected faults; want a PartialError from the injected EIO", err, in.Hits())
	}
	if record(t, b, "dst") == nil {
		t.Fatal("the record is gone although the cut-back failed: the next copy would not know to clean up")
	}
	if got := readStriped(t, b, "dst"); !bytes.Equal(got, want) {
		t.Fatal("the destination is not the source, although all its bytes were copied and published")
	}

	delete(pools.faults, "b")
	if _, err := c.Copy(context.Background(), req); err != nil {
		t.Fatalf("copy again: %v", err)
	}
	if r := record(t, b, "dst"); r != nil {
		t.Fatalf("record %q left after a complete copy", r)
	}
	for obj := uint64(2); obj < 9; obj++ {
		if _, err := b.Stat(layoutName("dst", obj)); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("object %d past the end: %v, want it removed", obj, err)
		}
	}
}

// Removing the record is the finish's last step; when it fails the copy
// fails and says so, with its bytes published.
func TestFinishRecordRemovalFault(t *testing.T) {
	// The same copy twice: once counting its xattr operations, once
	// failing the last of them, the record's removal.
	var xattrOps int
	for _, fail := range []bool{false, true} {
		pools := newFakePools("a", "b")
		a, _ := pools.Pool("a", "")
		b, _ := pools.Pool("b", "")
		want := stripedSource(t, a, "src", srcSize)
		rule := faults.Rule{Kind: faults.Xattr}
		if fail {
			rule = faults.Rule{Kind: faults.Xattr, Nth: xattrOps, Errno: syscall.EIO}
		}
		in := faults.New(1, rule)
		pools.faults["b"] = in
		c := New(radoscp.NewEngine(nil, nil), pools, nil)
		_, err := c.Copy(context.Background(), wholeCopy(t, "striper:a/src", "striper:b/dst"))
		if !fail {
			if err != nil {
				t.Fatal(err)
			}
			xattrOps = in.Hits()
			continue
		}
		var partial *PartialError
		if !errors.As(err, &partial) || !errors.Is(err, store.ErrIO) || !strings.Contains(err.Error(), "removing the record of the copy") {
			t.Fatalf("copy with the record's removal failing: %v, want a PartialError naming it", err)
		}
		if got := readStriped(t, b, "dst"); !bytes.Equal(got, want) {
			t.Fatal("the destination is not the source")
		}
	}
}

// The finish reads striper.size back: a size another writer set during
// the copy fails it, and the record stays.
func TestFinishFindsAnotherWriter(t *testing.T) {
	pools := newFakePools("a", "b")
	a, _ := pools.Pool("a", "")
	b, _ := pools.Pool("b", "")
	stripedSource(t, a, "src", srcSize)
	other := func(uint64) func() {
		// Another client, ignoring the lock, sets a larger size while
		// the copy runs (the copy only grows the size, so it stays).
		if err := b.SetXattr(layoutName("dst", 0), "striper.size", []byte("99999999")); err != nil {
			t.Fatal(err)
		}
		return func() {}
	}
	c := New(radoscp.NewEngine(nil, nil), pools, other)
	_, err := c.Copy(context.Background(), wholeCopy(t, "striper:a/src", "striper:b/dst"))
	if err == nil || !strings.Contains(err.Error(), "striper.size reads 99999999 after the copy, expected 525288: another writer") {
		t.Fatalf("copy with another writer: %v", err)
	}
	if record(t, b, "dst") == nil {
		t.Fatal("the record is gone after a finish that failed")
	}
}
