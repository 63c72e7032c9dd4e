package fscopy

import "github.com/radoscp/radoscp/cephfs"

// sameSymlink reports whether dst already is the symlink a copy of src
// (st, pointing at target) would make: a symlink to the same target and,
// unless NoPreserve, with src's owner and mtime (what the copy sets on
// it). Such a symlink is left alone, so a rerun does not unlink and
// re-create every symlink of a tree (each an MDS round trip, and a
// moment where the name is missing for readers of the destination).
// IgnoreTimes re-creates every one, as it copies every file.
func (c *Copier) sameSymlink(dst, target string, st cephfs.Stat) (bool, string) {
	if c.opts.IgnoreTimes {
		return false, ""
	}
	have, err := c.fs.Lstat(dst)
	if err != nil || !have.IsSymlink() {
		return false, ""
	}
	if got, err := c.fs.Readlink(dst); err != nil || got != target {
		return false, ""
	}
	if c.opts.NoPreserve {
		return true, "the destination is a symlink to the same target"
	}
	if have.UID != st.UID || have.GID != st.GID || !have.Mtime.Equal(st.Mtime) {
		return false, ""
	}
	return true, "the destination is a symlink to the same target, with the source's owner and mtime"
}
