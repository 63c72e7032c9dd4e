package fscopy

import (
	"fmt"

	"github.com/radoscp/radoscp/cephfs"
)

// flushedStat returns the stat of the source file src (sst, taken just
// before) once every write it shows is in the file's objects, which the
// copy reads at the OSDs, past every client's cache.
//
// A stat is coherent in its metadata, not in the data behind it. When
// another client holds the file exclusively (its writer, as the MDS's
// "loner"), the MDS answers this client's getattr by moving the file lock
// to XSYN: the writer flushes its dirty size and times but keeps its
// buffer caps (Fb), and its buffered data stays in its cache (seen on
// Ceph 16.2 in the MDS log at debug_mds 10: "ifile excl->xsyn", the loner
// allowed pAsxLsXsxFcb, "flush client dirty Fw"). A copy from that stat
// would put the old data in place under the new mtime, and a rerun would
// then find it unchanged. A client reading the file through libcephfs
// would first get read caps, for which the MDS revokes Fb; so does this:
// when the client holds none of Fs, Fr or Fx (see HoldsReadCaps), the file
// is opened for reading and one byte read, which waits for Fr, and the
// stat taken then, with Fr held, is the one returned.
//
// A snapshot's file cannot change and is returned as it is. The check
// costs no MDS request when the stat left this client holding Fs (the
// usual case: no other client holds the file exclusively); otherwise an
// open.
func (c *Copier) flushedStat(src string, sst cephfs.Stat) (cephfs.Stat, error) {
	if sst.Snap != 0 {
		return sst, nil
	}
	held, err := c.fs.HoldsReadCaps(src)
	if err != nil || held {
		return sst, err
	}
	f, err := c.fs.OpenRead(src)
	if err != nil {
		return sst, err
	}
	defer f.Close()
	var b [1]byte
	if _, err := f.ReadAt(b[:], 0); err != nil {
		return sst, fmt.Errorf("read cephfs:%s to get its read caps: %w", src, err)
	}
	st, err := f.Stat()
	if err != nil {
		return sst, err
	}
	if !st.IsRegular() {
		return st, fmt.Errorf("cephfs:%s is a %s, not a regular file", src, st.Type())
	}
	return st, nil
}
