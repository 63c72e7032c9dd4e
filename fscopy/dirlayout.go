package fscopy

import (
	"path"

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
	if single {
		l, pool, err := c.fs.CachedLayout(file.Path())
		c.mu.Lock()
		have, ok := c.dirLayouts[dir]
		c.mu.Unlock()
		if err == nil && ok && have.Layout == l && have.Pool == pool {
			return have, nil
		}
	}
	fl, err := file.Layout()
	if err != nil {
		return fl, err
	}
	c.mu.Lock()
	if len(c.dirLayouts) >= dirLayoutsMax {
		clear(c.dirLayouts)
	}
	c.dirLayouts[dir] = fl
	c.mu.Unlock()
	return fl, nil
}
