package radoscp_test

import (
	"context"
	"errors"
	"testing"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/rados/fake"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
)

// atSnap is a fake pool read at pool snapshot 7, as package rados's pool
// opened at a snapshot names its objects.
type atSnap struct{ *fake.Pool }

func (p atSnap) Locate(oid string) store.Location {
	l := p.Pool.Locate(oid)
	l.Snap = 7
	return l
}

func (p atSnap) Ref(oid string) string { return p.Pool.Ref(oid) + "@snap 7" }

// A copy from an object's pool snapshot onto its head (restoring in place)
// shares the object: COPY_FROM2 from a snapshot onto the head of the same
// object wedges the OSD. Copy and Check both refuse it (ErrOverlap), and
// nothing is written; a snapshot copy onto other objects of the same set
// is not refused.
func TestSnapshotOntoItsHeadOverlaps(t *testing.T) {
	f := newFixture(t, small, 4*obj)
	src := f.source
	src.Objects = atSnap{f.srcP}
	head := &counting{Objects: f.srcP}
	onto := truncate.NewRaw(head, small, "src", 0)
	if err := f.engine.Check(src, 0, radoscp.TargetOf(onto), 0, 4*obj, radoscp.Options{}); !errors.Is(err, radoscp.ErrOverlap) || !errors.Is(err, radoscp.ErrInvalid) {
		t.Fatalf("Check: got %v, want ErrOverlap", err)
	}
	if _, err := f.engine.Copy(context.Background(), src, 0, onto, 0, 4*obj, radoscp.Options{}); !errors.Is(err, radoscp.ErrOverlap) {
		t.Fatalf("Copy: got %v, want ErrOverlap", err)
	}
	if n := head.submits.Load(); n != 0 {
		t.Fatalf("%d copy-froms submitted onto the source's head", n)
	}
	assertEqual(t, "source", readFile(t, f.srcP, small, srcNames, 0, 4*obj), f.data)
	if err := f.engine.Check(src, 0, radoscp.TargetOf(onto), 8*obj, 4*obj, radoscp.Options{}); err != nil {
		t.Fatalf("a snapshot's objects onto other objects of the set: %v", err)
	}
}

// Check refuses, writing nothing, what Copy would refuse before writing:
// here --offload-only with layouts that need the client, also as the
// library words it ("offload only is set: bytes ...", said once).
func TestCheckRefusesOffloadOnly(t *testing.T) {
	f := newFixture(t, small, 4*obj)
	err := f.engine.Check(f.source, 0, radoscp.TargetOf(f.raw(0)), 100, obj, radoscp.Options{OffloadOnly: true})
	if !errors.Is(err, radoscp.ErrInvalid) || !errors.Is(err, radoscp.ErrOffloadOnly) {
		t.Fatalf("got %v", err)
	}
	if want := "invalid copy: offload only is set: bytes [0, 65536) cannot be copied by copy-from (not whole object sets aligned in both files)"; err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}
	if err := f.engine.Check(f.source, 0, radoscp.TargetOf(f.raw(0)), 0, 4*obj, radoscp.Options{OffloadOnly: true}); err != nil {
		t.Fatalf("whole aligned object sets: %v", err)
	}
	if left := f.objectsFrom(0, 8); len(left) != 0 || f.dst.submits.Load() != 0 {
		t.Fatalf("objects %v written", left)
	}
}
