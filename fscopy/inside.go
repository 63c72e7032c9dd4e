package fscopy

import (
	"fmt"
	"path"
	"strings"

	"github.com/radoscp/radoscp/cephfs"
)

// maxDepth bounds the walk up from a path.
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
	at, err := c.ancestorIs(path.Dir(dst), sst)
	if err != nil {
		return fmt.Errorf("%w: destination's directory %w", ErrUsage, err)
	}
	if at != "" {
		return fmt.Errorf("%w: cannot copy directory cephfs:%s into itself: cephfs:%s is inside it (cephfs:%s is cephfs:%s, inode %x); nothing was written",
			ErrUsage, src, dst, at, src, sst.Ino)
	}
	return nil
}

// checkSourceOutside refuses a tree copy of directory src into an
// existing target dst that holds src: the copy would write its own
// source's entries over others of them (the contents of Q/a/ copied into
// Q put Q/a/a/X over Q/a/X, often before Q/a/X is read), and --delete
// would remove the source as not in it. src's directory and its
// ancestors are compared with dst by inode and snapshot id, as
// checkOutside does the other way: a snapshot of the target, which no
// write reaches, may be copied into it (a restore).
func (c *Copier) checkSourceOutside(src, dst string) error {
	dst = path.Clean(dst)
	tst, err := c.fs.Stat(dst)
	if err != nil || !tst.IsDir() {
		return nil // no directory there yet: nothing of the source in it
	}
	at, err := c.ancestorIs(path.Dir(path.Clean(src)), tst)
	if err != nil {
		return fmt.Errorf("%w: source's directory %w", ErrUsage, err)
	}
	if at != "" {
		return fmt.Errorf("%w: cannot copy directory cephfs:%s into cephfs:%s, which holds it (cephfs:%s is cephfs:%s, inode %x): the copy would write over its own source; copy into a directory outside the source's; nothing was written",
			ErrUsage, src, dst, at, dst, tst.Ino)
	}
	return nil
}

// ancestorIs walks up from directory p to the root, as the MDS resolves
// ".." (an inode's parent, whatever symlinks the path went through), and
// returns the first of p and its ancestors that is want (same inode and
// snapshot id), named by the path walked; "" when none is. An error
// names the path that could not be read.
func (c *Copier) ancestorIs(p string, want cephfs.Stat) (string, error) {
	st, err := c.fs.Stat(p)
	for depth := 0; err == nil; depth++ {
		if depth == maxDepth {
			return "", fmt.Errorf("cephfs:%s: more than %d levels above it before the root", p, maxDepth)
		}
		if st.Ino == want.Ino && st.Snap == want.Snap {
			return p, nil
		}
		up := strings.TrimSuffix(p, "/") + "/.." // not path.Join: ".." is resolved by the MDS, not lexically
		var parent cephfs.Stat
		if parent, err = c.fs.Stat(up); err == nil && parent.Ino == st.Ino && parent.Snap == st.Snap {
			return "", nil // the root is its own parent
		}
		p, st = up, parent
	}
	return "", fmt.Errorf("cephfs:%s: %w", p, err)
}
