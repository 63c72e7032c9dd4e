package fscopy

import (
	"errors"
	"fmt"
	"strings"
)

// ErrSnapshot marks a request with a path inside a CephFS snapshot
// directory. A destination there is read-only. A source there is refused
// too, until copies read the snapshot: the objects copy-from would copy,
// and the client reads around them, are the live file's (head), not the
// snapshot's, so the copy would silently hold the wrong data.
var ErrSnapshot = errors.New("path inside a CephFS snapshot")

// defaultSnapDir is the name of the snapshot directory unless the client
// is configured otherwise (client_snapdir).
const defaultSnapDir = ".snap"

// snapDir is the snapshot directory's name for this client.
func (c *Copier) snapDir() string {
	if c.conn != nil {
		if v, err := c.conn.Raw().GetConfigOption("client_snapdir"); err == nil && v != "" {
			return v
		}
	}
	return defaultSnapDir
}

// inSnapshot says whether path p has a component named snapdir.
func inSnapshot(p, snapdir string) bool {
	for _, part := range strings.Split(p, "/") {
		if part == snapdir {
			return true
		}
	}
	return false
}

// checkNotSnapshot refuses src and dst paths inside snapshots.
func (c *Copier) checkNotSnapshot(src, dst string) error {
	snap := c.snapDir()
	if inSnapshot(src, snap) {
		return fmt.Errorf("%w: %w: source cephfs:%s: copying from snapshots is not supported yet (it would copy the live file, not the snapshot); nothing was written",
			ErrUsage, ErrSnapshot, src)
	}
	if dst != "" && inSnapshot(dst, snap) {
		return fmt.Errorf("%w: %w: destination cephfs:%s: snapshots are read-only; nothing was written", ErrUsage, ErrSnapshot, dst)
	}
	return nil
}
