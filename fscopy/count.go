package fscopy

import (
	"context"
	"path"

	"github.com/radoscp/radoscp/cephfs"
)

// Count walks the tree a Copy of src (or a Migrate of it) would walk, with
// the same filter, and calls add with each regular file's size, so that
// a progress display can show a total while the copy runs. It streams:
// it holds only the listings of the directories on the path it is in
// (as the copy's own walk does), plus one inode number per file with
// several links (a hard
// link's data is counted once, as it is copied once). It stops when ctx
// is done and returns the first error of a stat or listing of the root;
// an unreadable directory below it is skipped (the copy reports it).
func (c *Copier) Count(ctx context.Context, src string, add func(size uint64)) error {
	st, err := c.fs.Lstat(src)
	if err != nil {
		return err
	}
	t := &treeCopy{c: c, sum: &Summary{}, root: path.Clean(src), sh: newShardWalk(c.opts.Shard, src, src)}
	seen := map[uint64]bool{}
	var walk func(p string, st cephfs.Stat)
	walk = func(p string, st cephfs.Stat) {
		switch {
		case ctx.Err() != nil:
		case st.IsRegular():
			if !t.sh.owns(p, st) {
				return // another worker's
			}
			if st.Nlink > 1 {
				if seen[st.Ino] {
					return
				}
				seen[st.Ino] = true
			}
			add(st.Size)
		case st.IsDir():
			entries, err := c.fs.ReadDir(p)
			if err != nil {
				return
			}
			for _, e := range entries {
				if !c.isStaging(p, e) && !t.excluded(path.Join(p, e.Name), e.Stat) {
					walk(path.Join(p, e.Name), e.Stat)
				}
			}
		}
	}
	walk(t.root, st)
	return ctx.Err()
}
