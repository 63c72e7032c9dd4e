package fscopy

import (
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/radoscp/radoscp/cephfs"
)

// ErrWrittenAcross is a file that a migrate replaced and that was written
// after radoscp's last check of it: the writes went to the old inode (a
// program held it open across the rename), not to the file now in place.
// The old inode is kept under a recovery name (orphanName), and the
// migrate fails.
var ErrWrittenAcross = errors.New("written after radoscp's last check, into the replaced inode")

// oldInode is the inode a migrate replaces, from before its names are
// renamed over until the check after: a program holding it open across
// the renames writes into it. A reference on it is how radoscp sees those
// writes, and a link under a recovery name, made before the renames, is
// what keeps them reachable: libcephfs cannot link an inode whose last
// name is gone (ceph_ll_link gives ENOENT, seen on Ceph 16.2), so the
// name is made first and removed once the check finds the inode
// unwritten.
type oldInode struct {
	c      *Copier
	ref    *cephfs.InodeRef
	path   string
	orphan string      // the recovery name, next to path
	sst    cephfs.Stat // the copy's baseline
	links  uint32      // the names of it the migrate replaces
	ctime  time.Time   // after this migrate's last step
}

// holdOld takes the reference on p, the inode of sst, about to be
// replaced, with others, its other names, and links it at its recovery
// name. It refuses an inode that is not sst's, has another link count
// (a link made or removed since the walk counted its names), or whose
// ctime moved since the copy's baseline (a name of it renamed), and a
// recovery name that exists (left by a killed migrate: the error names
// it).
func (c *Copier) holdOld(p string, sst cephfs.Stat, others []string) (*oldInode, error) {
	for _, q := range others {
		st, err := c.fs.Lstat(q)
		if err != nil {
			return nil, err
		}
		if st.Ino != sst.Ino {
			return nil, fmt.Errorf("cephfs:%s: %w: it is inode %x now, not %x", q, ErrSourceChanged, st.Ino, sst.Ino)
		}
	}
	ref, err := c.fs.Ref(p)
	if err != nil {
		return nil, err
	}
	o := &oldInode{c: c, ref: ref, path: p, orphan: path.Join(path.Dir(p), orphanName(p, sst.Ino)), sst: sst,
		links: uint32(1 + len(others)), ctime: sst.Ctime}
	if err := o.expect(o.links); err != nil {
		ref.Release()
		return nil, err
	}
	if err := c.fs.Link(p, o.orphan); err != nil {
		ref.Release()
		return nil, fmt.Errorf("recovery name for writes made across the migrate: %w", err)
	}
	if err := o.moved(); err != nil {
		o.drop()
		o.release()
		return nil, err
	}
	return o, nil
}

// release drops the reference; a nil o holds none.
func (o *oldInode) release() {
	if o != nil {
		o.ref.Release()
	}
}

// drop removes the recovery name of an old inode that was not (or not
// wholly) replaced: its other names keep it.
func (o *oldInode) drop() {
	if o != nil {
		_ = o.c.fs.Unlink(o.orphan)
	}
}

// expect checks that the old inode is still the one copied, with n links,
// changed by nothing but this migrate since: its ctime is the one this
// migrate's last step left (another client's link, unlink or rename of
// it moves the ctime).
func (o *oldInode) expect(n uint32) error {
	now, err := o.ref.Stat()
	if err != nil {
		return err
	}
	if now.Ino != o.sst.Ino {
		return fmt.Errorf("cephfs:%s: %w (inode %x, now %x)", o.path, ErrSourceChanged, o.sst.Ino, now.Ino)
	}
	if now.Nlink != n || !now.Ctime.Equal(o.ctime) {
		return fmt.Errorf("cephfs:%s: %w: %d links, %d expected, ctime %d, %d expected (a link was made, removed or renamed meanwhile)",
			o.path, ErrSourceChanged, now.Nlink, n, now.Ctime.UnixNano(), o.ctime.UnixNano())
	}
	return nil
}

// moved takes the old inode's ctime after one of this migrate's own steps.
func (o *oldInode) moved() error {
	now, err := o.ref.Stat()
	if err != nil {
		return err
	}
	o.ctime = now.Ctime
	return nil
}

// relink replaces the old inode's other name p with a link to the copy
// now at dst; done names are already replaced. It refuses an old inode
// that another client linked, unlinked or renamed since the last step.
// (It does not stat p: this client's lookup of a remote link of an inode
// whose primary name was just renamed over gives ENOENT, seen on Ceph
// 16.2; holdOld checked every name, and the ctime shows any change since.)
func (o *oldInode) relink(dst, p string, done uint32) error {
	if err := o.expect(o.links - done + 1); err != nil { // + its recovery name
		return err
	}
	if err := o.c.replaceByLink(dst, p, nil); err != nil {
		return err
	}
	return o.moved()
}

// orphanName is where a replaced inode written across the migrate is kept,
// next to the file: NAME.radoscp-orphan-INO (hexadecimal, as in its
// objects' names).
func orphanName(p string, ino uint64) string {
	return fmt.Sprintf("%s.radoscp-orphan-%x", path.Base(p), ino)
}

// check stats the old inode after its names were replaced. If it was
// written after the copy's baseline (its size or mtime moved; its ctime
// moves with the links and renames themselves), it stays linked at its
// recovery name and the migrate fails with ErrWrittenAcross: the writes
// are neither lost nor merged into the copy, and later ones (the program
// keeps the file open) go there too. Otherwise the recovery name is
// removed, and the old inode with it once no program holds it open:
// writes made between this check and that unlink are lost with it.
func (o *oldInode) check() error {
	if o == nil {
		return nil
	}
	now, err := o.ref.Stat()
	if err != nil {
		return fmt.Errorf("cephfs:%s: the replaced inode %x could not be checked for writes made across the migrate (it stays linked as cephfs:%s): %w",
			o.path, o.sst.Ino, o.orphan, err)
	}
	if now.Size != o.sst.Size || !now.Mtime.Equal(o.sst.Mtime) {
		return fmt.Errorf("cephfs:%s: %w (%s, then %s); the replaced inode is kept as cephfs:%s: merge its changes by hand",
			o.path, ErrWrittenAcross, sourceRecord(o.sst), sourceRecord(now), o.orphan)
	}
	if err := o.c.fs.Unlink(o.orphan); err != nil {
		return fmt.Errorf("cephfs:%s is migrated, but its old copy's recovery name cephfs:%s could not be removed: %w", o.path, o.orphan, err)
	}
	return nil
}

// relinkAll replaces the old inode's other names with links to the copy
// now at dst, one rename each (see the README: between them, the names
// not yet replaced are still the old inode). On a failure the group is
// split, and the error names each side. A nil o has no other names.
func (o *oldInode) relinkAll(dst string, others []string) error {
	if o == nil {
		return nil
	}
	if err := o.moved(); err != nil { // the rename over dst unlinked one name
		return err
	}
	for i, p := range others {
		if err := o.relink(dst, p, uint32(1+i)); err != nil {
			o.drop()
			return fmt.Errorf("hard links of cephfs:%s: %w; the link group is split: %q are the copy in pool %s, %q still the old inode %x (link them by hand)",
				dst, err, append([]string{dst}, others[:i]...), o.c.opts.Pool, others[i:], o.sst.Ino)
		}
	}
	return nil
}
