package fscopy

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"syscall"

	"github.com/radoscp/radoscp/store"
)

// copyXattrs gives dst the xattrs of src that a copy keeps (every
// namespace a client can read and set: cephfs.FS.Xattrs) and removes
// those of dst that src does not have (an ACL dst inherited from its
// directory's default ACL, what an earlier copy left; radoscp's own
// marks stay), so that dst ends with src's, as after `rsync -aAX`. Call it after dst's owner and mode
// are set: a chown through some clients clears security.capability (the
// kernel's does; libcephfs does not), and an access ACL sets the mode's
// group bits (its mask), which are the source's either way. Setting an
// xattr moves no times but the ctime. Every xattr that cannot be set or
// removed is named in the error; the others are still set.
func (c *Copier) copyXattrs(src, dst string) error {
	want, err := c.fs.Xattrs(src)
	if err != nil {
		return err
	}
	return c.giveXattrs(src, want, dst)
}

// giveXattrs is copyXattrs with src's xattrs read: want.
func (c *Copier) giveXattrs(src string, want map[string][]byte, dst string) error {
	have, err := c.fs.Xattrs(dst)
	if err != nil {
		return err
	}
	var errs xattrErrors
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if v, ok := have[name]; ok && bytes.Equal(v, want[name]) {
			continue
		}
		if err := c.fs.SetXattr(dst, name, want[name]); err != nil {
			errs = append(errs, err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(have)) {
		if _, ok := want[name]; ok || strings.HasPrefix(name, radoscpXattrs) {
			continue // radoscp's own marks are its to remove
		}
		err := c.fs.RemoveXattr(dst, name)
		if err != nil && !errors.Is(err, fs.ErrNotExist) && store.ErrnoOf(err) != syscall.ENODATA {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("keep the xattrs of cephfs:%s: %w", src, errs)
	}
	return nil
}

// radoscpXattrs starts the names of the xattrs radoscp marks its own
// work with (a tree copy's destination, a staging file, a clone).
const radoscpXattrs = "user.radoscp."

// xattrErrors are the xattrs copyXattrs could not set or remove, each
// error naming its xattr and keeping its errno.
type xattrErrors []error

func (e xattrErrors) Error() string {
	msgs := make([]string, len(e))
	for i, err := range e {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

func (e xattrErrors) Unwrap() []error { return e }
