package truncate_test

import (
	"bytes"
	"fmt"
	"strconv"
	"syscall"
	"testing"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/rados/fake"
	"github.com/radoscp/radoscp/truncate"
)

// fakeFile models what the MDS does with a file's size and generation:
// shrinking bumps the sequence and sets the truncate size, growing does
// not; writes past the size grow it.
type fakeFile struct {
	data   []byte
	gen    rados.Generation
	xattrs map[string][]byte
	ops    []string
}

func newFakeFile() *fakeFile { return &fakeFile{xattrs: map[string][]byte{}} }

func (f *fakeFile) Ino() uint64           { return 0x10000000abc }
func (f *fakeFile) Size() (uint64, error) { return uint64(len(f.data)), nil }
func (f *fakeFile) WriteAt(p []byte, off uint64) error {
	if end := off + uint64(len(p)); end > uint64(len(f.data)) {
		f.data = append(f.data, make([]byte, end-uint64(len(f.data)))...)
	}
	copy(f.data[off:], p)
	f.ops = append(f.ops, fmt.Sprintf("write %d+%d", off, len(p)))
	return nil
}
func (f *fakeFile) Truncate(size uint64) error {
	f.ops = append(f.ops, fmt.Sprintf("truncate %d", size))
	if size < uint64(len(f.data)) {
		f.data = f.data[:size]
		f.gen = rados.Generation{Seq: max(f.gen.Seq, 1) + 1, Size: size}
		return nil
	}
	f.data = append(f.data, make([]byte, size-uint64(len(f.data)))...)
	return nil
}
func (f *fakeFile) Generation() (rados.Generation, error) { return f.gen, nil }
func (f *fakeFile) SetXattr(name string, v []byte) error {
	f.xattrs[name] = append([]byte(nil), v...)
	return nil
}
func (f *fakeFile) GetXattr(name string) ([]byte, error) {
	v, ok := f.xattrs[name]
	if !ok {
		return nil, &rados.Error{Op: "get xattr", Object: name, Errno: syscall.ENODATA}
	}
	return v, nil
}

func eofRecord(t *testing.T, f *fakeFile) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(string(f.xattrs[truncate.XattrEOF]), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Checkpoints only record; Publish also grows the size; a cut-back grows
// the file over what the copy may have written, then shrinks it to the
// EOF, which bumps the generation.
func TestCephFSPublishAndCutBack(t *testing.T) {
	f := newFakeFile()
	d, err := truncate.NewCephFS(f, fake.New().Pool("data"), striped)
	if err != nil {
		t.Fatal(err)
	}
	if d.Generation() != (rados.Generation{}) || eofRecord(t, f) != 0 || d.Offloadable(0) || !d.Offloadable(1) {
		t.Fatalf("new destination: generation %+v, EOF record %d, object 0 offloadable %v", d.Generation(), eofRecord(t, f), d.Offloadable(0))
	}
	if err := d.Checkpoint(100); err != nil || eofRecord(t, f) != 100 || len(f.data) != 0 {
		t.Fatalf("checkpoint: record %d, size %d, %v; want the record only", eofRecord(t, f), len(f.data), err)
	}
	if err := d.Publish(200); err != nil || eofRecord(t, f) != 200 || len(f.data) != 200 {
		t.Fatalf("publish: record %d, size %d, %v", eofRecord(t, f), len(f.data), err)
	}
	if err := d.Publish(150); err != nil || d.EOF() != 200 {
		t.Fatalf("publish shrank the EOF to %d (%v)", d.EOF(), err)
	}
	f.ops = nil
	if err := d.CutBack(200, 1000); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(f.ops) != "[truncate 1000 truncate 200]" || d.Generation() != (rados.Generation{Seq: 2, Size: 200}) {
		t.Fatalf("cut-back: %v, generation %+v; want grow to 1000, shrink to 200, (2, 200)", f.ops, d.Generation())
	}
}

// A resume reads the recorded EOF, not the size, and cuts back to it.
func TestResumeCephFS(t *testing.T) {
	f := newFakeFile()
	f.xattrs[truncate.XattrEOF] = []byte("300")
	f.WriteAt(make([]byte, 700), 0) // the MDS's probe after a crash
	d, err := truncate.ResumeCephFS(f, fake.New().Pool("data"), striped, 5000)
	if err != nil {
		t.Fatal(err)
	}
	if d.EOF() != 300 || len(f.data) != 300 || d.Generation() != (rados.Generation{Seq: 2, Size: 300}) {
		t.Fatalf("resume: EOF %d, size %d, generation %+v", d.EOF(), len(f.data), d.Generation())
	}
	if _, err := truncate.ResumeCephFS(newFakeFile(), fake.New().Pool("data"), striped, 10); err == nil {
		t.Fatal("resumed a file with no EOF record")
	}
}

// Data the engine writes to an object goes to the file offsets the layout
// maps the object's bytes to.
func TestCephFSObjectWritesGoThroughTheFile(t *testing.T) {
	f := newFakeFile()
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
	if want := "[write 458752+65536 write 655360+65536]"; fmt.Sprint(f.ops) != want {
		t.Fatalf("writes %v, want %s", f.ops, want)
	}
	if err := d.Objects().Write("10000000abd.00000001", []byte{1}, 0); err == nil {
		t.Fatal("wrote an object of another inode")
	}
	if err := d.Objects().Truncate(names.ObjectName(1), 0); err == nil {
		t.Fatal("truncated a CephFS object directly")
	}
}
