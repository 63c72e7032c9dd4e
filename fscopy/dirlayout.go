package fscopy

import (
	"path"
	"sync"

	"golang.org/x/sync/singleflight"

	"github.com/radoscp/radoscp/cephfs"
)

// dirLayoutsMax bounds the directories whose layout is remembered; past
// it, the memory is cleared and filled again as the walk goes on.
const dirLayoutsMax = 4096

// inheritedLayout is the layout a new staging file got from its
// directory. Reading it whole (cephfs.File.Layout) is a round trip to the
// MDS for every file; for a one-object copy, whose data all goes through
// libcephfs, the layout the previous new file in the same directory got
// is taken instead when the file's cached striping and pool (no round
// trip) are the same: only the pool namespace, which libcephfs gives no
// other way, is then taken as unchanged. A copy whose objects radoscp
// addresses itself (copy-from, more than one object) always reads it.
func (c *Copier) inheritedLayout(file *cephfs.File, single bool) (cephfs.FileLayout, error) {
	dir := path.Dir(file.Path())
	if !single {
		return c.dirLayouts.read(dir, file.Layout)
	}
	l, pool, err := c.fs.CachedLayout(file.Path())
	same := func(have cephfs.FileLayout) bool { return err == nil && have.Layout == l && have.Pool == pool }
	return c.dirLayouts.get(dir, same, file.Layout)
}

// layoutMemory is one layout per directory: the one last read of a file
// there. The zero value is empty.
type layoutMemory struct {
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
	m.mu.Lock()
	have, known := m.known[dir]
	m.mu.Unlock()
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

// read reads a file's layout with read and remembers it for dir.
func (m *layoutMemory) read(dir string, read func() (cephfs.FileLayout, error)) (cephfs.FileLayout, error) {
	fl, err := read()
	if err != nil {
		return fl, err
	}
	m.mu.Lock()
	if m.known == nil || len(m.known) >= dirLayoutsMax {
		m.known = map[string]cephfs.FileLayout{}
	}
	m.known[dir] = fl
	m.mu.Unlock()
	return fl, nil
}
