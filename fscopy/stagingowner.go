package fscopy

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"sync"
)

// A staging file's owner. Its mark (a mode) and the xattrs that describe
// it (xattrSource, the EOF record, xattrOwner) can be set by whoever owns
// the file, so a user who may create files in a destination directory (a
// shared, sticky one) could plant a file that looks like an interrupted
// copy's: a resume would keep its first bytes and rename it over a
// destination that user cannot write. So a file is only taken for a
// staging file to resume, grow, remove or put in place (ownsStaging)
// when it is owned by the uid this client creates files as. Only that
// uid or root can have made such a file, written its bytes or set its
// xattrs: a staging file has no group or other write bits from its
// creation (0600, then the mark 1600; an inherited ACL's entries are
// masked to nothing by them), and only root gives a file away. Whoever
// wrote the kept bytes could therefore have written the destination
// itself, and the resume does not check them again. A file of another
// owner is left alone like a user's file at a staging name: the copy
// takes the next name. The gid is not compared: a setgid directory
// gives it, and only the file's owner or root can change it.
//
// The uid is the one libcephfs sends with its requests, the mount's
// UserPerm (client_mount_uid when set; Client::pick_my_perms), which its
// C API does not expose: ceph_mount_perms gives an opaque pointer. So it
// is learned the way the MDS gives it, from a file this client creates.
// Walks (isStaging) and CheckResume's look (stagingLeft) do not ask:
// leaving a file out of a walk, or not refusing a resume, changes
// nothing, and the source of a walk may be read-only (a snapshot).

// creator is the uid a Copier's mount creates files as, learned once.
type creator struct {
	mu    sync.Mutex
	uid   uint32
	known bool
}

// creatorUID is the uid this client creates files as. The first call
// learns it from a probe file it creates in dir, the directory of the
// staging file in question (where the copy creates one anyway), and
// removes at once: two requests to the MDS, once per Copier, and only
// for a copy that finds something at a staging name. A probe left by a
// crash between the two is an empty file named .radoscp-owner.*. A
// failure is returned, and the next call tries again.
func (c *Copier) creatorUID(dir string) (uint32, error) {
	c.creator.mu.Lock()
	defer c.creator.mu.Unlock()
	if c.creator.known {
		return c.creator.uid, nil
	}
	var tag [8]byte
	_, _ = rand.Read(tag[:])
	probe := path.Join(dir, fmt.Sprintf("%s-owner.%d.%s", stagingStart, os.Getpid(), hex.EncodeToString(tag[:])))
	file, err := c.fs.CreateExclusive(probe, 0o600)
	if err != nil {
		return 0, fmt.Errorf("learn which uid this client creates files as: %w", err)
	}
	st, err := file.Stat()
	file.Close()
	if uerr := c.fs.Unlink(probe); err == nil {
		err = uerr
	}
	if err != nil {
		return 0, fmt.Errorf("learn which uid this client creates files as (cephfs:%s): %w", probe, err)
	}
	c.creator.uid, c.creator.known = st.UID, true
	return st.UID, nil
}

// ownMarked reports whether dir carries the mark of a tree copy of src
// and is owned by the uid this client creates files as: a staging tree
// to resume, fill and put in place. Its mark, like a staging file's
// records, can be set by whoever owns the directory, and a tree another
// user owns is theirs to change while the copy fills it.
func (c *Copier) ownMarked(src, dir string) bool {
	if !c.marked(src, dir) {
		return false
	}
	st, err := c.fs.Lstat(dir)
	if err != nil {
		return false
	}
	uid, err := c.creatorUID(path.Dir(dir))
	return err == nil && st.UID == uid
}
