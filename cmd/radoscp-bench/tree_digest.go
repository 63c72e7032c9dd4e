package main

import (
	"crypto/sha256"
	"fmt"
	"path"

	"github.com/radoscp/radoscp/cephfs"
)

// treeEntry is what a tree scenario checks of each path of a copy: its
// type and permissions, owner, and for a regular file its size, mtime and
// contents, for a symlink its target.
type treeEntry struct {
	mode, uid, gid uint32
	size           uint64
	mtime          int64
	sum            [sha256.Size]byte
	target         string
}

// treeStats is what a tree holds: regular files, their bytes, symlinks
// and directories (the root included).
type treeStats struct {
	files, symlinks, dirs int
	bytes                 uint64
}

// digestTree reads every path below root, by its path relative to root.
func digestTree(cfs *cephfs.FS, root string) (map[string]treeEntry, treeStats, error) {
	out := map[string]treeEntry{}
	st := treeStats{dirs: 1}
	buf := make([]byte, cloneChunk)
	var walk func(rel string) error
	walk = func(rel string) error {
		entries, err := cfs.ReadDir(path.Join(root, rel))
		if err != nil {
			return err
		}
		for _, e := range entries {
			p := path.Join(rel, e.Name)
			full := path.Join(root, p)
			te := treeEntry{mode: e.Stat.Mode, uid: e.Stat.UID, gid: e.Stat.GID}
			switch {
			case e.Stat.IsDir():
				st.dirs++
				if err := walk(p); err != nil {
					return err
				}
			case e.Stat.IsSymlink():
				st.symlinks++
				if te.target, err = cfs.Readlink(full); err != nil {
					return err
				}
			case e.Stat.IsRegular():
				st.files++
				st.bytes += e.Stat.Size
				te.size, te.mtime = e.Stat.Size, e.Stat.Mtime.UnixNano()
				if te.sum, err = hashFSFile(cfs, full, buf); err != nil {
					return err
				}
			}
			out[p] = te
		}
		return nil
	}
	return out, st, walk("")
}

// compareTrees says how the copy differs from the source, or nil.
func compareTrees(src, dst map[string]treeEntry) error {
	for p, s := range src {
		d, ok := dst[p]
		switch {
		case !ok:
			return fmt.Errorf("%s is missing from the copy", p)
		case d != s:
			return fmt.Errorf("%s differs: source %+v, copy %+v", p, s, d)
		}
	}
	for p := range dst {
		if _, ok := src[p]; !ok {
			return fmt.Errorf("%s is in the copy, not in the source", p)
		}
	}
	return nil
}
