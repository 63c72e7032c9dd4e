package desttest

import (
	"fmt"
	"sync"
	"syscall"

	"github.com/radoscp/radoscp/store"
)

// FakeFile models what the MDS does with a file's size and generation:
// shrinking bumps the sequence and sets the truncate size, growing does
// not; writes past the size grow it. It implements truncate.File.
type FakeFile struct {
	mu     sync.Mutex
	data   []byte
	gen    store.Generation
	xattrs map[string][]byte
	ops    []string
}

// NewFakeFile returns an empty, never truncated file.
func NewFakeFile() *FakeFile { return &FakeFile{xattrs: map[string][]byte{}} }

func (f *FakeFile) Ino() uint64 { return 0x10000000abc }

func (f *FakeFile) Size() (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return uint64(len(f.data)), nil
}

func (f *FakeFile) WriteAt(p []byte, off uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if end := off + uint64(len(p)); end > uint64(len(f.data)) {
		f.data = append(f.data, make([]byte, end-uint64(len(f.data)))...)
	}
	copy(f.data[off:], p)
	f.ops = append(f.ops, fmt.Sprintf("write %d+%d", off, len(p)))
	return nil
}

func (f *FakeFile) Truncate(size uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ops = append(f.ops, fmt.Sprintf("truncate %d", size))
	if size < uint64(len(f.data)) {
		f.data = f.data[:size]
		f.gen = store.Generation{Seq: max(f.gen.Seq, 1) + 1, Size: size}
		return nil
	}
	f.data = append(f.data, make([]byte, size-uint64(len(f.data)))...)
	return nil
}

func (f *FakeFile) Generation() (store.Generation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gen, nil
}

func (f *FakeFile) SetXattr(name string, v []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.xattrs[name] = append([]byte(nil), v...)
	return nil
}

func (f *FakeFile) GetXattr(name string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.xattrs[name]
	if !ok {
		return nil, &store.Error{Op: "get xattr", Object: name, Errno: syscall.ENODATA}
	}
	return append([]byte(nil), v...), nil
}

// Data is a copy of the file's bytes.
func (f *FakeFile) Data() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]byte(nil), f.data...)
}

// Ops returns the writes and truncates since the last call, and forgets
// them.
func (f *FakeFile) Ops() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	ops := f.ops
	f.ops = nil
	return ops
}
