package fscopy_test

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados/faults"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// A file within its object 0 is copied with no xattr request to the MDS
// and no setattr: its staging file's mark is a mode, held by the client as
// a dirty capability with the copy's own mode, owner and times, and it
// records nothing (its copy is one write); a file of two objects records
// its source, EOF and owner, and removes them. Both are exact, with
// their metadata.
func TestOneObjectCopyRecordsNothing(t *testing.T) {
	e := newEnv(t)
	sizes := []int{0, 1, 4096, 65536, 1 << 20, 4 << 20}
	for i, n := range sizes {
		e.write(t, e.path("s"+string(rune('a'+i))), nil, 0o640, map[uint64][]byte{0: test.RandomData(uint64(40+i), n)})
	}
	e.write(t, e.path("big"), nil, 0o600, map[uint64][]byte{0: test.RandomData(50, 4<<20+1)})
	c := e.copier(t, fscopy.Options{Copy: copyOpts(4)}, nil)

	before := test.MDSRequests(t)
	for i := range sizes {
		name := "s" + string(rune('a'+i))
		if r := c.CopyFile(ctx, e.path(name), e.path("c"+name)); r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	small := test.RequestsSince(before, test.MDSRequests(t))
	if small["create"] < uint64(len(sizes)) || small["rename"] < uint64(len(sizes)) {
		t.Fatalf("the MDS saw %v: fewer creates or renames than the %d copies", small, len(sizes))
	}
	if small["setxattr"] != 0 || small["rmxattr"] != 0 || small["setattr"] != 0 {
		t.Errorf("%d one-object copies made %d setxattr, %d rmxattr and %d setattr requests, want none: the mark is a mode the client holds (all requests: %v)",
			len(sizes), small["setxattr"], small["rmxattr"], small["setattr"], small)
	}
	t.Logf("MDS requests for %d one-object copies: %v", len(sizes), small)

	before = test.MDSRequests(t)
	if r := c.CopyFile(ctx, e.path("big"), e.path("cbig")); r.Err != nil {
		t.Fatal(r.Err)
	}
	big := test.RequestsSince(before, test.MDSRequests(t))
	if big["setxattr"] < 3 || big["rmxattr"] < 3 {
		t.Errorf("a two-object copy made %d setxattr and %d rmxattr requests, want its source, EOF and owner records set and removed (all: %v)",
			big["setxattr"], big["rmxattr"], big)
	}
	for i := range sizes {
		name := "s" + string(rune('a'+i))
		assertEqual(t, name, e.read(t, e.path("c"+name)), e.read(t, e.path(name)))
		e.assertSameMeta(t, e.path(name), e.path("c"+name))
	}
	assertEqual(t, "big", e.read(t, e.path("cbig")), e.read(t, e.path("big")))
	e.assertSameMeta(t, e.path("big"), e.path("cbig"))
}

// The staging file of an interrupted one-object copy has no record of
// its source: --resume starts it over, says why, and the copy is exact.
func TestOneObjectLeftoverStartsOver(t *testing.T) {
	e := newEnv(t)
	data := test.RandomData(51, 50000)
	e.write(t, e.path("f"), nil, 0o644, map[uint64][]byte{0: data})
	// What a copy killed mid-write leaves: part of the data, no records
	// but the mark.
	e.write(t, e.path(".radoscp.g"), nil, 0o600, map[uint64][]byte{0: data[:1000]})
	if err := e.other.SetXattr(e.path(".radoscp.g"), "user.radoscp.staging", []byte("g"), 0); err != nil {
		t.Fatal(err)
	}
	var reports []fscopy.Report
	if _, err := e.copier(t, fscopy.Options{Resume: true}, &reports).Copy(ctx, e.path("f"), e.path("g"), false); err != nil {
		t.Fatal(err)
	}
	if r := reports[0]; r.Resumed || !strings.Contains(r.Reason, "one object records none") {
		t.Fatalf("resumed %v, reason %q; want a restart saying one-object copies record nothing", r.Resumed, r.Reason)
	}
	assertEqual(t, "copy", e.read(t, e.path("g")), data)
	if _, err := e.fs.Lstat(e.path(".radoscp.g")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("staging file left: %v", err)
	}
}

// A one-object copy in progress is still exclusive: a staging file whose
// lock another client holds is left alone, and the message says that no
// owner is recorded for such copies.
func TestOneObjectStagingLocked(t *testing.T) {
	e := newEnv(t)
	e.write(t, e.path("f"), nil, 0o644, map[uint64][]byte{0: test.RandomData(52, 3000)})
	f, err := e.other.Open(e.path(".radoscp.g"), os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.SetXattr("user.radoscp.staging", []byte("g"), 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Flock(gocephfs.LockEX|gocephfs.LockNB, 7); err != nil {
		t.Fatal(err)
	}
	r := e.copier(t, fscopy.Options{}, nil).CopyFile(ctx, e.path("f"), e.path("g"))
	if !errors.Is(r.Err, fscopy.ErrBusy) || !strings.Contains(r.Err.Error(), "owner not recorded") {
		t.Fatalf("copy onto a locked staging file: %v; want ErrBusy saying no owner is recorded", r.Err)
	}
	if _, err := e.fs.Lstat(e.path("g")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("destination made while another copy held the staging file: %v", err)
	}
	if _, err := e.fs.Lstat(e.path(".radoscp.g")); err != nil {
		t.Fatalf("the other copy's staging file: %v", err)
	}
}

// A one-object copy that fails after part of it is in place (objects of
// 8 MiB, a 6 MiB file copied in 4 MiB chunks, the second read failing)
// leaves no staging file: a resume would have nothing to continue.
func TestOneObjectFailureLeavesNothing(t *testing.T) {
	e := newEnv(t)
	l := layout.Layout{StripeUnit: 8 << 20, StripeCount: 1, ObjectSize: 8 << 20}
	e.write(t, e.path("f"), &l, 0o644, map[uint64][]byte{0: test.RandomData(53, 6<<20)})
	in := faults.New(1, faults.Rule{Kind: faults.Read, Nth: 2, Errno: syscall.EIO})
	r := e.copier(t, fscopy.Options{WrapObjects: in.Wrap, Copy: copyOpts(1)}, nil).CopyFile(ctx, e.path("f"), e.path("g"))
	if !errors.Is(r.Err, store.ErrIO) || r.Result.Bytes != 4<<20 {
		t.Fatalf("copy with its second read failing: %d bytes, %v; want the first 4 MiB and EIO", r.Result.Bytes, r.Err)
	}
	if strings.Contains(r.Err.Error(), "resume") {
		t.Errorf("the error offers a resume of a one-object copy: %v", r.Err)
	}
	for _, p := range []string{"g", ".radoscp.g"} {
		if _, err := e.fs.Lstat(e.path(p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s exists after the failed copy: %v", p, err)
		}
	}
}
