package truncate_test

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados/fake"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
	"github.com/radoscp/radoscp/truncate/desttest"
)

func mustXattr(t *testing.T, f *desttest.FakeFile) []byte {
	t.Helper()
	v, err := f.GetXattr(truncate.XattrEOF)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func eofRecord(t *testing.T, f *desttest.FakeFile) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(string(mustXattr(t, f)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Checkpoints only record; Publish also grows the size; a cut-back grows
// the file over what the copy may have written, then shrinks it to the
// EOF, which bumps the generation.
func TestCephFSPublishAndCutBack(t *testing.T) {
	f := desttest.NewFakeFile()
	d, err := truncate.NewCephFS(f, fake.New().Pool("data"), striped)
	if err != nil {
		t.Fatal(err)
	}
	if d.Generation() != (store.Generation{}) || eofRecord(t, f) != 0 || d.Offloadable(0) || !d.Offloadable(1) {
		t.Fatalf("new destination: generation %+v, EOF record %d, object 0 offloadable %v", d.Generation(), eofRecord(t, f), d.Offloadable(0))
	}
	if err := d.Checkpoint(100); err != nil || eofRecord(t, f) != 100 || len(f.Data()) != 0 {
		t.Fatalf("checkpoint: record %d, size %d, %v; want the record only", eofRecord(t, f), len(f.Data()), err)
	}
	if err := d.Publish(200); err != nil || eofRecord(t, f) != 200 || len(f.Data()) != 200 {
		t.Fatalf("publish: record %d, size %d, %v", eofRecord(t, f), len(f.Data()), err)
	}
	if err := d.Publish(150); err != nil || d.EOF() != 200 {
		t.Fatalf("publish shrank the EOF to %d (%v)", d.EOF(), err)
	}
	f.Ops()
	if err := d.CutBack(200, 1000); err != nil {
		t.Fatal(err)
	}
	if ops := fmt.Sprint(f.Ops()); ops != "[truncate 1000 truncate 200]" || d.Generation() != (store.Generation{Seq: 2, Size: 200}) {
		t.Fatalf("cut-back: %v, generation %+v; want grow to 1000, shrink to 200, (2, 200)", ops, d.Generation())
	}
}

// A resume reads the recorded EOF, not the size, and cuts back to it.
func TestResumeCephFS(t *testing.T) {
	f := desttest.NewFakeFile()
	f.SetXattr(truncate.XattrEOF, []byte("300"))
	f.WriteAt(make([]byte, 700), 0) // the MDS's probe after a crash
	d, err := truncate.ResumeCephFS(f, fake.New().Pool("data"), striped, 5000)
	if err != nil {
		t.Fatal(err)
	}
	if d.EOF() != 300 || len(f.Data()) != 300 || d.Generation() != (store.Generation{Seq: 2, Size: 300}) {
		t.Fatalf("resume: EOF %d, size %d, generation %+v", d.EOF(), len(f.Data()), d.Generation())
	}
	if _, err := truncate.ResumeCephFS(desttest.NewFakeFile(), fake.New().Pool("data"), striped, 10); err == nil {
		t.Fatal("resumed a file with no EOF record")
	}
}

// Data the engine writes to an object goes to the file offsets the layout
// maps the object's bytes to.
func TestCephFSObjectWritesGoThroughTheFile(t *testing.T) {
	f := desttest.NewFakeFile()
	d, err := truncate.NewCephFS(f, fake.New().Pool("data"), striped)
	if err != nil {
		t.Fatal(err)
	}
	names := layout.CephFS(f.Ino())
	obj := bytes.Repeat([]byte{7}, int(striped.ObjectSize))
	if err := d.Objects().WriteFull(names.ObjectName(4), obj); err != nil {
		t.Fatal(err)
	}
	// Object 4 of (64K, 3, 128K) is the second object of set 1: its two
	// stripe units are file bytes [448K, 512K) and [640K, 704K).
	if want, ops := "[write 458752+65536 write 655360+65536]", fmt.Sprint(f.Ops()); ops != want {
		t.Fatalf("writes %v, want %s", ops, want)
	}
	if err := d.Objects().Write("10000000abd.00000001", []byte{1}, 0); err == nil {
		t.Fatal("wrote an object of another inode")
	}
	if err := d.Objects().Truncate(names.ObjectName(1), 0); err == nil {
		t.Fatal("truncated a CephFS object directly")
	}
}
