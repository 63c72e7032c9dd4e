package fscopy

import (
	"path"
	"sync"

	"golang.org/x/sync/singleflight"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/layout"
)

// dirLayoutsMax bounds the directories whose layout is remembered; past
// it, the memory is cleared and filled again as the walk goes on.
const dirLayoutsMax = 4096

// inheritedLayout is the layout a new staging file got from its
// directory. Reading it whole (cephfs.File.Layout) is a round trip to the
// MDS for every file; for a one-object copy, whose data all goes through
// libcephfs, a layout remembered for the directory (see layoutMemory) is
// taken instead when the file's cached striping and pool (no round trip)
// are the same: only the pool namespace, which libcephfs gives no other
// way, is then taken as unchanged. A copy whose objects radoscp addresses
// itself (copy-from, more than one object) always reads it.
func (c *Copier) inheritedLayout(file *cephfs.File, single bool) (cephfs.FileLayout, error) {
	dir := path.Dir(file.Path())
	if !single {
		return c.dirLayouts.read(dir, file.Layout)
	}
	l, pool, err := c.fs.CachedLayout(file.Path())
	same := func(have cephfs.FileLayout) bool { return err == nil && have.Layout == l && have.Pool == pool }
	read := func() (cephfs.FileLayout, error) {
		if have, ok := c.dirLayouts.inherited(dir); ok && same(have) {
			return have, nil
		}
		return file.Layout()
	}
	return c.dirLayouts.get(dir, same, read)
}

// hasNoLayout reports whether directory dir has no layout of its own, as
// this client has it cached (no round trip to the MDS; the listing that
// found a source directory, or the reply that made or changed a
// destination directory, brought it).
func (c *Copier) hasNoLayout(dir string) bool {
	l, pool, err := c.fs.CachedLayout(dir)
	return err == nil && l == (layout.Layout{}) && pool == ""
}

// layoutMemory is one layout per directory: the one last read of a file
// there, or, for a directory none was read in, of a file in a directory
// whose new files get the same layout (see passes). The zero value is
// empty and remembers each directory's own only.
type layoutMemory struct {
	// passes reports whether the layout of a directory's files may be
	// taken for its parent's, and its parent's for it. On the
	// destination, a directory with no layout of its own: a new file
	// gets the layout of its nearest ancestor that has one, so a layout
	// read in a directory holds for every directory from there up to
	// that ancestor, and down from it through such directories. On the
	// source, any directory: there a layout taken is a guess that the
	// caller proves.
	passes func(dir string) bool

	mu    sync.Mutex
	known map[string]cephfs.FileLayout
	reads singleflight.Group
}

// get is the layout remembered for dir if fits (the file's own cached
// striping and pool) accepts it, else the one read reads, remembered.
// While one call reads for a directory nothing is remembered for, the
// others wait for that read and take it if it fits them: files of one
// directory copied at once would otherwise each read it, the first
// read not yet answered (the more of them the slower the MDS replies).
func (m *layoutMemory) get(dir string, fits func(cephfs.FileLayout) bool, read func() (cephfs.FileLayout, error)) (cephfs.FileLayout, error) {
	have, known := m.lookup(dir)
	if known && fits(have) {
		return have, nil
	}
	if !known {
		mine := false
		v, err, _ := m.reads.Do(dir, func() (any, error) {
			mine = true
			return m.read(dir, read)
		})
		if mine {
			return v.(cephfs.FileLayout), err
		}
		if err == nil && fits(v.(cephfs.FileLayout)) {
			return v.(cephfs.FileLayout), nil
		}
	}
	return m.read(dir, read)
}

// inherited is the layout remembered for the nearest ancestor of dir that
// has one remembered, if dir and every directory between pass.
func (m *layoutMemory) inherited(dir string) (cephfs.FileLayout, bool) {
	for d := dir; m.passes != nil && m.passes(d); {
		up := path.Dir(d)
		if up == d {
			break
		}
		d = up
		if fl, ok := m.lookup(d); ok {
			return fl, true
		}
	}
	return cephfs.FileLayout{}, false
}

func (m *layoutMemory) lookup(dir string) (cephfs.FileLayout, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fl, ok := m.known[dir]
	return fl, ok
}

// read reads a file's layout with read and remembers it for dir, and for
// each ancestor the layout passes up to (the first that does not pass
// included), as far as the first that has one remembered: what is above
// that was remembered with it. A read costs so one look at its parent
// once the tree above is known, not a walk to the root.
func (m *layoutMemory) read(dir string, read func() (cephfs.FileLayout, error)) (cephfs.FileLayout, error) {
	fl, err := read()
	if err != nil {
		return fl, err
	}
	var up []string
	for d := dir; m.passes != nil && m.passes(d) && path.Dir(d) != d; {
		d = path.Dir(d)
		if _, ok := m.lookup(d); ok {
			break
		}
		up = append(up, d)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.known == nil || len(m.known)+len(up) >= dirLayoutsMax {
		m.known = map[string]cephfs.FileLayout{}
	}
	m.known[dir] = fl
	for _, d := range up {
		if _, ok := m.known[d]; !ok {
			m.known[d] = fl
		}
	}
	return fl, nil
}
