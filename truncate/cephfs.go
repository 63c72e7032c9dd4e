package truncate

import (
	"errors"
	"fmt"
	"strconv"
	"syscall"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
)

// XattrEOF records a CephFS staging file's published EOF: every byte below
// it is in place. The file's size is not trusted for that: writes through
// libcephfs may run ahead of earlier copy-froms, and when a writer dies the
// MDS recovers the size by probing objects, which would count speculative
// ones.
const XattrEOF = "user.radoscp.eof"

// File is what a CephFS destination needs of its staging file; package
// cephfs's *File implements it.
type File interface {
	Ino() uint64
	Size() (uint64, error)
	WriteAt(p []byte, off uint64) error
	// Truncate sets the size through the MDS; shrinking bumps the truncate
	// generation and trims the objects past the new size.
	Truncate(size uint64) error
	// Generation is the file's truncate generation as OSDs store it.
	Generation() (store.Generation, error)
	SetXattr(name string, value []byte) error
	GetXattr(name string) ([]byte, error)
}

// CephFS is a CephFS file that a copy fills: a staging file, created by
// radoscp, invisible under its final name until complete.
//
// Copy-from writes its objects straight to the data pool with the file's
// truncate generation, so that later writes and truncates by any client
// treat them as the file's own. Everything else is written through
// libcephfs, which sends the generation itself: object 0 always (it
// carries the backtrace and layout xattrs the MDS wrote for this inode,
// which copy-from would replace with the source's), and partial objects.
//
// It keeps two EOFs apart. The recorded EOF (xattr XattrEOF) says which
// prefix is in place, for a resume; checkpoints move it while copies are in
// flight. The published EOF is the file's size through the MDS, what a
// reader sees; only Publish and a cut-back move it. A checkpoint never
// stands in for a publish: the size must still be grown.
//
// A cut-back is a real truncate through the MDS: the file is first grown
// over everything the copy may have written, then truncated to the
// recorded EOF, so the MDS bumps the generation and trims those objects.
type CephFS struct {
	file      File
	objs      *fileObjects
	layout    layout.Layout
	names     layout.Namer
	recorded  uint64 // in XattrEOF: every byte below it is in place
	published uint64 // the size made visible through the MDS
	gen       store.Generation
	// unrecorded keeps the recorded EOF in memory only (see
	// NewUnrecordedCephFS).
	unrecorded bool
}

// NewCephFS starts filling file, created exclusively and empty (so never
// truncated: generation (0, 0)) with layout l, whose objects are in pool.
func NewCephFS(file File, pool store.Objects, l layout.Layout) (*CephFS, error) {
	d := newCephFS(file, pool, l)
	if err := d.record(0); err != nil {
		return nil, err
	}
	return d, nil
}

// NewUnrecordedCephFS is NewCephFS for a staging file that is never
// resumed: its copy is one write (a file within object 0), so an
// interrupted one starts over. Its EOF is recorded in memory only, not
// in XattrEOF: no round trips to the MDS to set and remove the record.
// Recorded still says what the copy put in place, for the check before
// the file is renamed.
func NewUnrecordedCephFS(file File, pool store.Objects, l layout.Layout) *CephFS {
	d := newCephFS(file, pool, l)
	d.unrecorded = true
	return d
}

// ResumeCephFS continues filling a staging file that an earlier copy left:
// its published EOF is what it recorded. Whatever that copy may have
// written past the EOF, up to limit (the source's size), is cut back
// first, so that the generation the rest of the copy carries is a new one.
func ResumeCephFS(file File, pool store.Objects, l layout.Layout, limit uint64) (*CephFS, error) {
	d := newCephFS(file, pool, l)
	v, err := file.GetXattr(XattrEOF)
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	if d.recorded, err = strconv.ParseUint(string(v), 10, 64); err != nil {
		return nil, fmt.Errorf("resume: xattr %s = %q: expected a decimal number", XattrEOF, v)
	}
	if err := d.truncateBack(max(limit, d.recorded)); err != nil {
		return nil, err
	}
	return d, nil
}

func newCephFS(file File, pool store.Objects, l layout.Layout) *CephFS {
	names := layout.CephFS(file.Ino())
	return &CephFS{file: file, layout: l, names: names,
		objs: &fileObjects{Objects: pool, file: file, layout: l, ino: file.Ino()}}
}

func (c *CephFS) Objects() store.Objects       { return c.objs }
func (c *CephFS) Layout() layout.Layout        { return c.layout }
func (c *CephFS) Names() layout.Namer          { return c.names }
func (c *CephFS) EOF() uint64                  { return c.published }
func (c *CephFS) Recorded() uint64             { return c.recorded }
func (c *CephFS) Unrecorded() bool             { return c.unrecorded }
func (c *CephFS) Generation() store.Generation { return c.gen }
func (c *CephFS) Close() error                 { return nil }

// Offloadable keeps object 0 out of copy-from: it holds this inode's
// backtrace.
func (c *CephFS) Offloadable(obj uint64) bool { return obj != 0 }

// Held is always nil: a file holds no copy lock of its own (fscopy keeps
// what it writes to staging files nobody else writes).
func (c *CephFS) Held() error { return nil }

// Checkpoint records eof while copies are in flight; the size is left to
// Publish, which runs when nothing is being written.
func (c *CephFS) Checkpoint(eof uint64) error {
	if eof <= c.recorded {
		return nil
	}
	return c.record(eof)
}

// Publish records eof, then grows the file to it through the MDS. It
// depends on the published EOF only: whatever a checkpoint recorded, the
// size is grown. Recording first keeps recorded >= published, so a copy
// killed in between resumes from a true record.
func (c *CephFS) Publish(eof uint64) error {
	if eof <= c.published {
		return nil
	}
	if eof > c.recorded {
		if err := c.record(eof); err != nil {
			return err
		}
	}
	size, err := c.file.Size()
	if err != nil {
		return err
	}
	if size < eof {
		if err := c.file.Truncate(eof); err != nil {
			return fmt.Errorf("publish EOF %d: %w", eof, err)
		}
	}
	c.published = eof
	return nil
}

func (c *CephFS) record(eof uint64) error {
	if c.unrecorded {
		c.recorded = eof
		return nil
	}
	if err := c.file.SetXattr(XattrEOF, []byte(strconv.FormatUint(eof, 10))); err != nil {
		return fmt.Errorf("record EOF %d: %w", eof, err)
	}
	c.recorded = eof
	return nil
}

// CutBack truncates the file to its recorded EOF through the MDS, after
// growing it over [from, to) so that the truncate covers every object the
// copy may have written. The size is then the recorded EOF, which becomes
// the published one: every byte below it is in place.
func (c *CephFS) CutBack(from, to uint64) error {
	if to <= c.recorded {
		return nil
	}
	return c.truncateBack(to)
}

func (c *CephFS) truncateBack(to uint64) error {
	size, err := c.file.Size()
	if err != nil {
		return err
	}
	if size < to {
		if err := c.file.Truncate(to); err != nil {
			return fmt.Errorf("cut back: grow over [%d, %d): %w", c.recorded, to, err)
		}
	}
	if to > c.recorded || size > c.recorded {
		if err := c.file.Truncate(c.recorded); err != nil {
			return fmt.Errorf("cut back to EOF %d: %w", c.recorded, err)
		}
	} else if size < c.recorded {
		// Nothing to trim, but a record ahead of the size (a copy
		// killed between recording and growing) is still published.
		if err := c.file.Truncate(c.recorded); err != nil {
			return fmt.Errorf("publish EOF %d: %w", c.recorded, err)
		}
	}
	c.published = c.recorded
	if c.gen, err = c.file.Generation(); err != nil {
		return err
	}
	return nil
}

// fileObjects is the destination's data pool as the copy engine sees it:
// copy-froms, removals and stats go to the objects, but data the client
// writes goes through the file, so that it carries the file's generation.
type fileObjects struct {
	store.Objects
	file   File
	layout layout.Layout
	ino    uint64
}

func (o *fileObjects) Write(oid string, data []byte, off uint64) error {
	obj, err := o.objectNo(oid)
	if err != nil {
		return err
	}
	for len(data) > 0 {
		n := min(uint64(len(data)), o.layout.StripeUnit-off%o.layout.StripeUnit)
		if err := o.file.WriteAt(data[:n], o.layout.FileOffset(obj, off)); err != nil {
			return err
		}
		data, off = data[n:], off+n
	}
	return nil
}

// WriteFull writes data at the start of the object. The object is one of a
// new file's, or past a cut-back (whose objects read as empty under the
// bumped generation), so nothing past data needs clearing.
func (o *fileObjects) WriteFull(oid string, data []byte) error { return o.Write(oid, data, 0) }

// Truncate is not how a CephFS file is cut: only the MDS truncates it.
func (o *fileObjects) Truncate(oid string, _ uint64) error {
	return &store.Error{Op: "truncate", Object: o.Ref(oid), Errno: syscall.EPERM,
		Detail: "CephFS objects are truncated through the MDS"}
}

func (o *fileObjects) objectNo(oid string) (uint64, error) {
	var ino, obj uint64
	if _, err := fmt.Sscanf(oid, "%x.%08x", &ino, &obj); err != nil || ino != o.ino {
		return 0, errors.New("not an object of inode " + strconv.FormatUint(o.ino, 16) + ": " + oid)
	}
	return obj, nil
}

// Cover grows the file to size, if it is smaller, before the copy writes
// any object past its size. The MDS purges a removed file's objects up to
// its size only: covered, the file takes every object a copy up to size
// may write with it, however it is removed (an operator's rm after a
// kill -9, a copy that cannot grow it any more under a quota). The
// published EOF stays where it is; the size past it reads as a hole
// until the copy fills it. A cut-back truncates below it: cover again
// before copying on.
func (c *CephFS) Cover(size uint64) error {
	now, err := c.file.Size()
	if err != nil {
		return err
	}
	if now >= size {
		return nil
	}
	if err := c.file.Truncate(size); err != nil {
		return fmt.Errorf("cover %d bytes before copying: %w", size, err)
	}
	return nil
}
