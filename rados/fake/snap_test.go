package fake_test

import (
	"errors"
	"testing"

	"github.com/radoscp/radoscp/rados/fake"
	"github.com/radoscp/radoscp/store"
)

// The fake has no snapshots: a copy-from at one is refused, never copied
// from head.
func TestSubmitAtSnapshotRefused(t *testing.T) {
	s := fake.New()
	a, b := s.Pool("a"), s.Pool("b")
	if err := a.WriteFull("src", []byte("head")); err != nil {
		t.Fatal(err)
	}
	l := a.Locate("src")
	l.Snap = 7
	if _, err := b.Submit("dst", l, store.CopyOptions{}); !errors.Is(err, store.ErrNotSupported) {
		t.Fatalf("copy at a snapshot on the fake: %v, want EOPNOTSUPP", err)
	}
	if b.Has("dst") {
		t.Fatal("the refused copy wrote dst")
	}
}
