package fscopy_test

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"
	"testing"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/rados/faults"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
	"github.com/radoscp/radoscp/truncate"
)

// The fifth copy-from fails with EIO while later ones are in flight: the
// destination does not appear; the staging file records the four whole
// objects before the failure (and object 0) as its EOF and was cut back
// with a real truncate. --resume then continues from there under the
// bumped generation; the finished copy is byte-exact, and another client
// can still truncate it.
func TestFailureThenResume(t *testing.T) {
	e := newEnv(t)
	src, dst := e.path("src"), e.path("dst")
	data := test.RandomData(30, 40<<20+4321)
	e.write(t, src, nil, 0o640, map[uint64][]byte{0: data})

	in := faults.New(1, faults.Rule{Kind: faults.Copy, Nth: 5, Errno: syscall.EIO})
	var reports []fscopy.Report
	_, err := e.copier(t, fscopy.Options{WrapObjects: in.Wrap, Copy: copyOpts(16)}, &reports).Copy(ctx, src, dst, false)
	if !errors.Is(err, store.ErrIO) && (len(reports) == 0 || !errors.Is(reports[0].Err, store.ErrIO)) {
		t.Fatalf("copy with a failing copy-from: %v, reports %+v", err, reports)
	}
	if _, err := e.fs.Lstat(dst); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("destination visible after a failed copy: %v", err)
	}
	r := reports[0]
	if !r.Result.CutBack || r.Result.Bytes != 20<<20 {
		t.Fatalf("failed copy: %d bytes, cut back %v; want the 5 objects before the failure and a cut-back", r.Result.Bytes, r.Result.CutBack)
	}
	staging := e.path(".radoscp.dst")
	eof, err := e.fs.GetXattr(staging, truncate.XattrEOF)
	if err != nil || string(eof) != strconv.Itoa(20<<20) {
		t.Fatalf("staging file's recorded EOF %q, %v; want %d", eof, err, 20<<20)
	}
	assertEqual(t, "staging file's published prefix", e.read(t, staging), data[:20<<20])

	reports = nil
	if _, err := e.copier(t, fscopy.Options{Resume: true, Copy: copyOpts(16)}, &reports).Copy(ctx, src, dst, false); err != nil {
		t.Fatal(err)
	}
	r = reports[0]
	// Two truncates: the failed copy's cut-back, and the resume's own
	// (which cannot know whether a killed copy left objects past the EOF).
	if !r.Resumed || r.ResumedFrom != 20<<20 || r.Result.Objects != 5 || r.Result.Generation != (store.Generation{Seq: 3, Size: 20 << 20}) {
		t.Fatalf("resume: resumed %v from %d, %d objects by copy-from, generation %+v; want from %d, 5 objects, (3, 20 MiB)",
			r.Resumed, r.ResumedFrom, r.Result.Objects, r.Result.Generation, 20<<20)
	}
	assertEqual(t, "resumed copy", e.read(t, dst), data)
	if _, err := e.fs.Lstat(staging); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("staging file left after the resumed copy: %v", err)
	}
	e.assertSameMeta(t, src, dst)

	// Objects the resume copied carry seq 3: another client's append
	// lands, and its truncate (seq 4) trims them.
	f, err := e.other.Open(dst, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	tail := test.RandomData(31, 100)
	if _, err := f.Write(tail); err != nil {
		t.Fatal(err)
	}
	f.Fsync(gocephfs.SyncAll)
	f.Close()
	want := append(append([]byte{}, data...), tail...)
	assertEqual(t, "copy after an append", e.read(t, dst), want)
	if err := e.other.Truncate(dst, 30<<20); err != nil {
		t.Fatal(err)
	}
	if err := e.other.Truncate(dst, int64(len(want))); err != nil {
		t.Fatal(err)
	}
	clear(want[30<<20:])
	assertEqual(t, "copy truncated and grown back", e.read(t, dst), want)
}

// A rerun without --resume removes the interrupted copy's staging file and
// starts over.
func TestRerunWithoutResumeStartsOver(t *testing.T) {
	e := newEnv(t)
	src, dst := e.path("src"), e.path("dst")
	data := test.RandomData(32, 20<<20)
	e.write(t, src, nil, 0o640, map[uint64][]byte{0: data})
	in := faults.New(1, faults.Rule{Kind: faults.Copy, Nth: 2, Errno: syscall.EIO})
	if _, err := e.copier(t, fscopy.Options{WrapObjects: in.Wrap}, nil).Copy(ctx, src, dst, false); err == nil {
		t.Fatal("copy with a failing copy-from succeeded")
	}
	var reports []fscopy.Report
	if _, err := e.copier(t, fscopy.Options{}, &reports).Copy(ctx, src, dst, false); err != nil {
		t.Fatal(err)
	}
	if r := reports[0]; r.Resumed || r.Reason == "" || r.Result.Bytes != uint64(len(data)) {
		t.Fatalf("rerun: resumed %v, reason %q, %d bytes; want a fresh copy that says it removed the staging file", r.Resumed, r.Reason, r.Result.Bytes)
	}
	assertEqual(t, "copy", e.read(t, dst), data)
}

// A source written to during the copy: the copy is not put in place.
func TestSourceChangedDuringCopy(t *testing.T) {
	e := newEnv(t)
	src, dst := e.path("src"), e.path("dst")
	e.write(t, src, nil, 0o640, map[uint64][]byte{0: test.RandomData(33, 9<<20)})
	var o fscopy.Options
	var h fscopy.Hooks
	h.AfterCopy = func(string) {
		f, err := e.other.Open(src, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		f.WriteAt([]byte("changed"), 100)
		f.Fsync(gocephfs.SyncAll)
		f.Close()
	}
	var reports []fscopy.Report
	_, err := e.copierWith(t, o, &reports, h).Copy(ctx, src, dst, false)
	if err == nil || !errors.Is(reports[0].Err, fscopy.ErrSourceChanged) {
		t.Fatalf("copy of a changing source: %v, report %+v", err, reports)
	}
	for _, p := range []string{dst, e.path(".radoscp.dst")} {
		if _, err := e.fs.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s exists after the source changed: %v", p, err)
		}
	}
}
