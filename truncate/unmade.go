package truncate

import (
	"bytes"
	"fmt"
	"maps"
	"syscall"

	"github.com/radoscp/radoscp/store"
)

// unmake removes oid, which an open created (no data, exactly xattrs) just
// before its lock could not be taken, so that a refused open leaves
// nothing behind: without the lock class in its caps a client creates the
// object and is then refused the lock (EPERM). It removes oid only while
// it is still as it was made, in the op that removes it: a rival that
// found it and locked it in the meantime, even between the check and the
// removal, has changed it, and keeps its object. It returns
// lerr, the lock's error, saying what was left if oid could not be
// checked or removed.
func unmake(objs store.Objects, oid string, xattrs map[string][]byte, lerr error) error {
	st, err := objs.Stat(oid)
	if err != nil {
		return fmt.Errorf("%w; left %s, made for the lock: %w", lerr, objs.Ref(oid), err)
	}
	attrs, err := objs.Xattrs(oid)
	if err != nil {
		return fmt.Errorf("%w; left %s, made for the lock: %w", lerr, objs.Ref(oid), err)
	}
	if st.Size != 0 || !maps.EqualFunc(attrs, xattrs, bytes.Equal) {
		return lerr // someone else's now
	}
	// Removed only at the version checked: a rival that locked it after
	// the check changed it (a lock is an xattr), and keeps it.
	err = objs.RemoveIfVersion(oid, st.Version)
	if store.ErrnoOf(err) == syscall.ECANCELED {
		return lerr
	}
	if err != nil {
		return fmt.Errorf("%w; left %s, made for the lock: %w", lerr, objs.Ref(oid), err)
	}
	return lerr
}
