package fscopy

import (
	"path"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/layout"
)

// sourceLayout is the layout of the source file src (stat sst, taken
// with Fs held: see flushedStat), pool namespace included, which names
// the objects the copy reads.
//
// Reading it whole (the ceph.file.layout vxattr) is a request to the MDS
// for every file: libcephfs refreshes every vxattr from the MDS first.
// The client has the layout in its cache, but gives its striping and
// pool only (cephfs.FS.CachedLayout), not its namespace. So for a file of
// one object, where a file's layout most often is the one the previous
// file read in the same directory had (or, for a directory's first, the
// files of its nearest ancestor), that namespace is taken, and then
// proven: the file's object 0 is found there, holding data. A layout can
// be set only on an empty file that was never truncated, so the objects
// of a file with data all live where its layout says, and nowhere else
// (the MDS writes a backtrace to object 0 in the default namespace of a
// file in another one, but that object holds no data). Where the proof
// fails (object 0 absent or empty: a sparse file, or another namespace),
// and for every file of more objects, the vxattr is read. A file with no
// data reads no objects: its namespace is never used.
//
// The proof of a file of at most one chunk is a read of its data, which
// is returned: the copy's read of object 0 is answered from it (object0),
// so the proof costs no round trip to the OSDs of its own.
func (c *Copier) sourceLayout(src *srcFile, sst cephfs.Stat) (cephfs.FileLayout, *object0, error) {
	dir := path.Dir(src.path)
	cached, err := src.cachedLayout()
	if err != nil || !oneObject(sst.Size, cached.Layout) {
		fl, err := c.srcLayouts.read(dir, src.layout)
		return fl, nil, err
	}
	var read *object0 // what the last proof read, if it proved its layout
	proven := func(have cephfs.FileLayout) bool {
		read = nil
		if have.Layout != cached.Layout || have.Pool != cached.Pool {
			return false
		}
		ok, r := c.holdsData(have, sst)
		read = r
		return ok
	}
	// The first file of a directory tries, under the same proof, the
	// layout remembered for its nearest ancestor: most trees keep one
	// namespace, so most directories then cost no read.
	readLayout := func() (cephfs.FileLayout, error) {
		if have, ok := c.srcLayouts.inherited(dir); ok && proven(have) {
			return have, nil
		}
		return src.layout()
	}
	fl, err := c.srcLayouts.get(dir, proven, readLayout)
	if err != nil {
		return fl, nil, err
	}
	return fl, read, nil
}

// anyDir lets a source directory's first file try the layout of any
// ancestor's files: the proof, not the directories between, decides.
func anyDir(string) bool { return true }

// holdsData reports whether the file of stat sst has no data, or its
// object 0 holds data in the pool and namespace of l. A file of at most
// one chunk is proven by reading its data, returned with the answer; a
// larger one, or a pinned copy's (whose reads must all follow its pins),
// by a stat.
func (c *Copier) holdsData(l cephfs.FileLayout, sst cephfs.Stat) (bool, *object0) {
	if sst.Size == 0 {
		return true, nil
	}
	objs, err := c.pool(l, sst.Snap)
	if err != nil {
		return false, nil
	}
	oid := layout.CephFS(sst.Ino).ObjectName(0)
	if sst.Size > c.opts.Copy.ChunkSize() || c.opts.Copy.PinSource {
		st, err := objs.Stat(oid)
		return err == nil && st.Size > 0, nil
	}
	buf := make([]byte, sst.Size)
	n, err := objs.Read(oid, buf, 0)
	if err != nil || n == 0 {
		return false, nil
	}
	return true, &object0{oid: oid, data: buf[:n], ended: n < len(buf)}
}
