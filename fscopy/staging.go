package fscopy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strings"

	"github.com/radoscp/radoscp/cephfs"
)

// StagingPrefix starts the name of every staging file. Tree walks skip
// such names: they are copies in progress, not data.
const StagingPrefix = ".radoscp."

// xattrSource records which source state a staging file is a copy of, so
// that a resume continues only a copy of the same, unchanged file.
const xattrSource = "user.radoscp.source"

// stagingPath is the staging file of dst: next to it, so that the final
// rename stays in one directory, and derived from its name alone, so that
// a rerun finds it. Names too long for that are hashed.
func stagingPath(dst string) string {
	dir, base := path.Split(dst)
	name := StagingPrefix + base
	if len(name) > 255 {
		sum := sha256.Sum256([]byte(base))
		name = StagingPrefix + hex.EncodeToString(sum[:16])
	}
	return dir + name
}

// IsStaging reports whether a directory entry is a staging file.
func IsStaging(name string) bool { return strings.HasPrefix(name, StagingPrefix) }

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
