package fscopy

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/store"
)

// ErrSnapshot marks a request with a path inside a CephFS snapshot
// directory where none may be: a destination (snapshots are read-only),
// migrate's root, or a source that names the snapshot directory itself
// rather than one snapshot.
var ErrSnapshot = errors.New("path inside a CephFS snapshot")

// snapDir is the snapshot directory's name for this client.
func (c *Copier) snapDir() string { return cephfs.SnapDir(c.conn) }

// inSnapshot says whether path p has a component named snapdir.
func inSnapshot(p, snapdir string) bool {
	_, _, n := snapshotRoot(p, snapdir)
	return n > 0
}

// snapshotRoot splits p at its first snapdir component: root is
// DIR/SNAPDIR/NAME, the snapshot p is in ("" when p is DIR/SNAPDIR
// itself), n the number of snapdir components.
func snapshotRoot(p, snapdir string) (root, name string, n int) {
	parts := strings.Split(p, "/")
	for i, part := range parts {
		if part != snapdir {
			continue
		}
		if n == 0 && i+1 < len(parts) && parts[i+1] != "" {
			root, name = strings.Join(parts[:i+2], "/"), parts[i+1]
		}
		n++
	}
	return root, name, n
}

// snapshot is the CephFS snapshot a copy reads: DIR/.snap/NAME and its id.
type snapshot struct {
	root string
	id   uint64
}

func (s *snapshot) String() string { return fmt.Sprintf("snapshot cephfs:%s (id %d)", s.root, s.id) }

// checkPaths refuses destinations inside snapshots, and sources there
// that are not inside exactly one snapshot. It returns the source's
// snapshot, nil for a source at head.
func (c *Copier) checkPaths(src, dst string) (*snapshot, error) {
	sd := c.snapDir()
	if dst != "" && inSnapshot(dst, sd) {
		return nil, fmt.Errorf("%w: %w: destination cephfs:%s: snapshots are read-only; nothing was written", ErrUsage, ErrSnapshot, dst)
	}
	root, _, n := snapshotRoot(src, sd)
	switch {
	case n == 0:
		return nil, nil
	case root == "":
		return nil, fmt.Errorf("%w: %w: source cephfs:%s is the snapshot directory: give one snapshot, cephfs:%s/NAME; nothing was written",
			ErrUsage, ErrSnapshot, src, strings.TrimSuffix(src, "/"))
	case n > 1:
		return nil, fmt.Errorf("%w: %w: source cephfs:%s names %s more than once; nothing was written", ErrUsage, ErrSnapshot, src, sd)
	}
	return c.snapshotAt(root)
}

// checkDestinationLive refuses a destination that a symlink on its path
// takes into a snapshot, which checkPaths cannot see in the path's text:
// its directory, as the MDS resolves it, belongs to one (a snapshot's
// inodes carry its id, the snapshot directory its own). A directory that
// cannot be read is left to the copy to report, as before.
func (c *Copier) checkDestinationLive(dst string) error {
	st, err := c.fs.Stat(path.Dir(dst))
	if err != nil || st.Snap == 0 {
		return nil
	}
	return fmt.Errorf("%w: %w: destination cephfs:%s: its directory is in a snapshot, through a symlink; snapshots are read-only; nothing was written", ErrUsage, ErrSnapshot, dst)
}

// snapshotAt resolves the snapshot whose root is root (once per copier:
// a tree's files share it).
func (c *Copier) snapshotAt(root string) (*snapshot, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.snaps[root]; s != nil {
		return s, nil
	}
	id, err := c.fs.SnapID(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: source: no snapshot cephfs:%s: %w", ErrUsage, root, err)
	}
	if err != nil {
		return nil, fmt.Errorf("source: snapshot cephfs:%s: %w", root, err)
	}
	s := &snapshot{root: root, id: id}
	c.snaps[root] = s
	return s, nil
}

// sourceSnapshot is the snapshot src (a file being copied) is in, or nil
// at head. Its inode's snapid, which its objects are read at, must be the
// snapshot's.
func (c *Copier) sourceSnapshot(src string, snapID uint64) (*snapshot, error) {
	root, _, n := snapshotRoot(src, c.snapDir())
	if n == 0 && snapID == 0 {
		return nil, nil
	}
	if n != 1 || root == "" {
		return nil, fmt.Errorf("%w: %w: source cephfs:%s (snapid %d) is not inside one snapshot", ErrUsage, ErrSnapshot, src, snapID)
	}
	s, err := c.snapshotAt(root)
	if err != nil {
		return nil, err
	}
	if s.id != snapID {
		return nil, fmt.Errorf("source cephfs:%s has snapid %d, its snapshot cephfs:%s id %d: refusing to read objects at either",
			src, snapID, s.root, s.id)
	}
	return s, nil
}

// checkSnapshot fails if s is gone, or its name now stands for another
// snapshot: then reads at its id may have found nothing (which a copy
// takes for holes) or anything, and the copy must not be put in place.
// A snapshot cannot come back, so if it is there now, every read that
// completed before read it.
func (c *Copier) checkSnapshot(s *snapshot) error {
	id, err := c.fs.SnapID(s.root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %s is gone: %w", store.ErrSnapshotRemoved, s, err)
	case err != nil:
		return fmt.Errorf("checking %s: %w", s, err)
	case id != s.id:
		return fmt.Errorf("%w: %s is gone; the name now stands for snapshot id %d", store.ErrSnapshotRemoved, s, id)
	}
	return nil
}

// holdSnapshot holds s's root open for a tree copy from it, until
// release: its files and directories are then stat'ed, listed and opened
// by walks from there (cephfs.FS.HoldRoot), not through DIR/.snap/NAME,
// whose walk asks the MDS twice each time. The root held must be the
// snapshot s was resolved as: a name that now stands for another
// snapshot is refused, as checkSnapshot refuses it. checkSnapshot itself
// still looks the name up.
func (c *Copier) holdSnapshot(s *snapshot) (release func(), err error) {
	st, release, err := c.fs.HoldRoot(s.root)
	if err != nil {
		return nil, fmt.Errorf("source: %s: %w", s, err)
	}
	if st.Snap != s.id {
		release()
		return nil, fmt.Errorf("%w: %s is gone; the name now stands for snapshot id %d", store.ErrSnapshotRemoved, s, st.Snap)
	}
	return release, nil
}
