package fscopy

import (
	"fmt"
	"path"
	"strings"

	"github.com/radoscp/radoscp/cephfs"
)

// maxDepth bounds the walk up from a destination.
const maxDepth = 4096

// checkOutside refuses a tree copy of directory src (stat sst) to dst
// inside src itself, however dst's path names it: through a symlink to
// src or to one of its ancestors, the copy would copy itself without end.
// Like GNU cp, it compares inodes, not path text: dst's directory and each
// of its ancestors up to the root, as the MDS resolves them (".." is an
// inode's parent, whatever symlinks the path went through), against src.
// A snapshot's directory has its head's inode number: the snapshot id
// tells them apart.
func (c *Copier) checkOutside(src, dst string, sst cephfs.Stat) error {
	if dst == src || strings.HasPrefix(dst, strings.TrimSuffix(src, "/")+"/") {
		return fmt.Errorf("%w: cannot copy directory cephfs:%s into itself (cephfs:%s)", ErrUsage, src, dst)
	}
	p := path.Dir(dst)
	st, err := c.fs.Stat(p)
	for depth := 0; err == nil; depth++ {
		if depth == maxDepth {
			return fmt.Errorf("%w: destination's directory cephfs:%s: more than %d levels above it before the root", ErrUsage, path.Dir(dst), maxDepth)
		}
		if st.Ino == sst.Ino && st.Snap == sst.Snap {
			return fmt.Errorf("%w: cannot copy directory cephfs:%s into itself: cephfs:%s is inside it (cephfs:%s is cephfs:%s, inode %x); nothing was written",
				ErrUsage, src, dst, p, src, sst.Ino)
		}
		up := strings.TrimSuffix(p, "/") + "/.." // not path.Join: ".." is resolved by the MDS, not lexically
		var parent cephfs.Stat
		if parent, err = c.fs.Stat(up); err == nil && parent.Ino == st.Ino && parent.Snap == st.Snap {
			return nil // the root is its own parent
		}
		p, st = up, parent
	}
	return fmt.Errorf("%w: destination's directory cephfs:%s: %w", ErrUsage, p, err)
}
