package fscopy

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/radoscp/radoscp/cephfs"
)

// Staging names. A file is copied to a staging file next to its
// destination NAME, at the first free one of a few names derived from NAME
// alone (stagingName), so that a rerun finds it. Right after its creation
// and locking it is marked: its permission bits are set to exactly
// stagingMode. Only a regular file with one link at a staging name of the
// destination being copied, carrying the mark, is ever taken for a
// staging file: resumed, grown, truncated, removed, or left out of a
// walk; and only one owned by the uid this client creates files as is
// resumed, grown, truncated or removed (stagingowner.go). Anything else at a staging name, a user's file or an unmarked
// leftover, is never touched: the copy takes the next name. A crash
// between a staging file's creation and its mark, or between the copy's
// own mode replacing the mark (finish) and the rename, leaves an unmarked
// file that radoscp leaves alone.
//
// The mark is a mode because a mode costs the MDS no request: the client
// that created the file holds its mode as a dirty capability until a cap
// flush (cephfs.File.Chmod), where an xattr is a request to set it and
// another to remove it (two of the six requests a file copied through a
// staging file cost). Another client's stat makes the MDS recall the
// capability first, so every other run sees the mark once it is set, and,
// set after the lock, only on a locked file. radoscp before 2026-12-05
// marked staging files with xattr xattrStaging holding NAME instead; such
// a file is still taken for a staging file.
//
// A hard link is replaced through a staging link of its own names
// (".radoscp-link."), which cannot be marked (a mode, like an xattr, is
// the inode's, the linked file's): a name that exists is never removed,
// the link is made at the next free one.

// StagingPrefix starts the name of every staging file of a destination.
const StagingPrefix = ".radoscp."

// stagingStart starts every staging name: the first of a file
// (StagingPrefix), later ones (".radoscp-2."), and links' (".radoscp-link.").
const stagingStart = ".radoscp"

// stagingNames is how many names a staging file of one destination may
// take before the copy gives up (each taken by something not its own).
const stagingNames = 8

// stagingMode marks a staging file: its permission bits, exactly (the
// sticky bit, meaningless on a file, and the owner's read and write).
const stagingMode = 0o1600

// modeMarked reports whether st's mode is the staging mark.
func modeMarked(st cephfs.Stat) bool { return st.Perm() == stagingMode }

// xattrStaging marked the staging files of radoscp before 2026-12-05; its
// value is the destination's name.
const xattrStaging = "user.radoscp.staging"

// xattrSource records which source state a staging file is a copy of, so
// that a resume continues only a copy of the same, unchanged file.
const xattrSource = "user.radoscp.source"

// stagingName is the k-th (from 0) staging name of destination name base,
// of a file or (link) of a hard link. The tag between stagingStart and the
// next dot holds no dot, so names of different k, kind or base differ
// (hashed names aside: their marks tell them apart). Names too long are
// hashed.
func stagingName(base string, k int, link bool) string {
	tag := ""
	if link {
		tag = "-link"
	}
	if k > 0 {
		tag += "-" + strconv.Itoa(k+1)
	}
	name := stagingStart + tag + "." + base
	if len(name) > 255 {
		sum := sha256.Sum256([]byte(base))
		name = stagingStart + tag + "." + hex.EncodeToString(sum[:16])
	}
	return name
}

// stagingPath is the k-th staging path of the file dst.
func stagingPath(dst string, k int) string {
	dir, base := path.Split(dst)
	return dir + stagingName(base, k, false)
}

// isStagingMark reports whether mark, the xattrStaging of the file named
// name, makes it a staging file: name is a staging name of the
// destination the mark names.
func isStagingMark(name string, mark []byte) bool {
	for k := range stagingNames {
		if stagingName(string(mark), k, false) == name {
			return true
		}
	}
	return false
}

// isStagingName reports whether name is a staging name of a file (not
// of a hard link) of some destination: stagingName(base, k, false) for a
// non-empty base and a k below stagingNames.
func isStagingName(name string) bool {
	rest, ok := strings.CutPrefix(name, stagingStart)
	if !ok {
		return false
	}
	tag, base, ok := strings.Cut(rest, ".")
	if !ok || base == "" {
		return false
	}
	if tag == "" {
		return true
	}
	k, err := strconv.Atoi(strings.TrimPrefix(tag, "-"))
	return strings.HasPrefix(tag, "-") && err == nil && tag == "-"+strconv.Itoa(k) && k >= 2 && k <= stagingNames
}

// stagingMarked reports whether the regular file p, of stat st, carries
// the mark of a staging file of destination base ("" for any):
// stagingMode, or an older radoscp's xattrStaging naming base (and name
// p's base a staging name of it).
func (c *Copier) stagingMarked(p string, st cephfs.Stat, base string) bool {
	if !st.IsRegular() {
		return false
	}
	if modeMarked(st) {
		return true
	}
	mark, err := c.fs.GetXattr(p, xattrStaging)
	if err != nil || (base != "" && string(mark) != base) {
		return false
	}
	return isStagingMark(path.Base(p), mark)
}

// isStaging reports whether entry e of directory dir is a staging file:
// a regular file at a staging name, carrying the mark. Walks leave such
// files out; every other entry is data, whatever its name. The entry is
// stat'ed afresh: a listing's stat may predate the mark.
func (c *Copier) isStaging(dir string, e cephfs.Entry) bool {
	if !e.Stat.IsRegular() || !isStagingName(e.Name) {
		return false
	}
	p := path.Join(dir, e.Name)
	st, err := c.fs.Lstat(p)
	return err == nil && c.stagingMarked(p, st, "")
}

// stagingLeft reports whether a staging file of dst, marked as such, is
// in place: an interrupted copy's, which a rerun removes or resumes.
func (c *Copier) stagingLeft(dst string) bool {
	base := path.Base(dst)
	for k := range stagingNames {
		p := stagingPath(dst, k)
		st, err := c.fs.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return false // the names after the first free one are not used
		}
		if err == nil && c.stagingMarked(p, st, base) {
			return true
		}
	}
	return false
}

// errNotStaging is a file at a staging name that is not a staging file of
// this destination: it is left alone, and the copy takes the next name.
var errNotStaging = errors.New("not a staging file of this destination")

// ownsStaging checks that the open file is a staging file of destination
// name base: a regular file of one link (another name's data is never
// touched through it), owned by the uid this client creates files as
// (stagingowner.go), carrying the mark.
func (c *Copier) ownsStaging(file *cephfs.File, base string) error {
	st, err := file.Stat()
	if err != nil {
		return err
	}
	if !st.IsRegular() || st.Nlink != 1 {
		return errNotStaging
	}
	uid, err := c.creatorUID(path.Dir(file.Path()))
	if err != nil {
		return fmt.Errorf("%w: %w", errNotStaging, err)
	}
	if st.UID != uid {
		return errNotStaging
	}
	if modeMarked(st) {
		return nil
	}
	if mark, err := file.GetXattr(xattrStaging); err != nil || string(mark) != base {
		return errNotStaging
	}
	return nil
}

// markStaging marks a new staging file, once it is locked (see above),
// and waits until the MDS has the mark: held only by this client, it would
// be lost with it, and a killed copy's staging file, unmarked, could be
// neither resumed nor removed. The wait is a cap flush, not a request:
// measured, 0.3-0.5 ms of MDS CPU a file, where the xattr's set and
// removal cost about 1 ms (docs/benchmarks.md).
func markStaging(file *cephfs.File) error {
	if err := file.Chmod(stagingMode); err != nil {
		return err
	}
	return file.Fsync()
}

// adoptStaging gives a locked staging file an older radoscp marked with
// xattrStaging, which a copy resumes, today's mark, and then removes the
// xattr, so that the copy's own mode (finish) is all that unmarks it. It
// is marked throughout.
func adoptStaging(file *cephfs.File) error {
	st, err := file.Stat()
	if err != nil || modeMarked(st) {
		return err
	}
	if err := markStaging(file); err != nil {
		return err
	}
	return file.RemoveXattr(xattrStaging)
}

// removeStaging unlinks the staging file's name if it still names the
// file's inode: a staging name a placement put another file at (a tree's
// file of that name) is left alone.
func (c *Copier) removeStaging(file *cephfs.File) error {
	st, err := c.fs.Lstat(file.Path())
	if err != nil || st.Ino != file.Ino() {
		return nil
	}
	return c.fs.Unlink(file.Path())
}

// errNoStagingName is a destination whose every staging name is taken by
// something that is not its staging file.
func errNoStagingName(dst string) error {
	var names []string
	for k := range stagingNames {
		names = append(names, "cephfs:"+stagingPath(dst, k))
	}
	return fmt.Errorf("no staging name free for cephfs:%s: %s are all taken, by files that are not its staging files (radoscp leaves them alone) or by entries of the tree copied beside it; nothing was changed",
		dst, strings.Join(names, ", "))
}

// sourceRecord identifies a source's state: inode, size, mtime and ctime,
// and for a snapshot's file, the snapshot's id (its inode number is the
// head's).
func sourceRecord(st cephfs.Stat) string {
	rec := fmt.Sprintf("ino=%x size=%d mtime=%d ctime=%d", st.Ino, st.Size, st.Mtime.UnixNano(), st.Ctime.UnixNano())
	if st.Snap != 0 {
		rec += fmt.Sprintf(" snap=%d", st.Snap)
	}
	return rec
}
