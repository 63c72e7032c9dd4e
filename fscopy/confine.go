package fscopy

import (
	"errors"
	"io/fs"
	"path"
)

// confine has the copy's writes, listings and opens follow no symlink
// below the directories it writes in and reads (cephfs.FS.Confine): a
// directory of the target that another client swaps for a symlink while
// the copy runs fails the entries below it (ELOOP), instead of taking
// their writes wherever it points; one of a live source fails them
// instead of giving the copy another tree's files. dirs are resolved now, as the caller named them; one that does
// not exist is left out (nothing is written below it: its writes fail
// as they did). release ends the confinement.
func (c *Copier) confine(dirs ...string) (release func(), err error) {
	var releases []func()
	release = func() {
		for _, r := range releases {
			r()
		}
	}
	for _, d := range dirs {
		r, err := c.fs.Confine(d)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			release()
			return nil, err
		}
		releases = append(releases, r)
	}
	return release, nil
}

// writtenDirs are the directories a copy to dst writes in: dst's
// directory (a staging name beside dst, and the rename onto it) and, if
// dst is a directory (or a symlink to one, as the caller named it), dst.
func (c *Copier) writtenDirs(dst string) []string {
	dirs := []string{path.Dir(dst)}
	if st, err := c.fs.Stat(dst); err == nil && st.IsDir() {
		dirs = append(dirs, dst)
	}
	return dirs
}
