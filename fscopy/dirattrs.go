package fscopy

import (
	"fmt"
	"strings"
	"syscall"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/store"
)

// A tree copy keeps a directory's CephFS attributes: its layout
// (ceph.dir.layout: pool, namespace and striping, which the files later
// created in it inherit) and its quotas (ceph.quota.max_bytes,
// ceph.quota.max_files). Only attributes set on the source directory
// itself are read (a directory without a layout of its own inherits its
// parent's, and reads as ENODATA). The layout is set right after the
// directory is made, before any file is created in it, so the copied
// files get it too; quotas are set at the end, with the times, so that
// staging files never count against them while the copy runs. Setting
// either needs the 'p' flag in the client's MDS caps; a destination that
// already has the value is left alone, so a tree without layouts or
// quotas needs no 'p'. NoPreserve leaves both out.

const (
	xattrDirLayout = "ceph.dir.layout"
	xattrMaxBytes  = "ceph.quota.max_bytes"
	xattrMaxFiles  = "ceph.quota.max_files"
	// xattrQuota reads both quotas at once ("max_bytes=N max_files=M",
	// ENODATA when neither is set): each vxattr read is a getattr at the
	// MDS, whatever the client has cached.
	xattrQuota = "ceph.quota"
)

// dirAttrs are the attributes of a source directory to keep; "" is unset.
type dirAttrs struct {
	layout, maxBytes, maxFiles string
}

// readDirAttrs reads the layout and quotas set on directory src: one
// request to the MDS for the quotas, and one for the layout only when the
// client's cache says src has one of its own (hasNoLayout: the listing
// that found src brought it; a layout set after that listing is missed,
// as one set after the read would be). The vxattr gives the namespace,
// which the cache does not.
func (c *Copier) readDirAttrs(src string) (dirAttrs, error) {
	var a dirAttrs
	var err error
	if !c.hasNoLayout(src) {
		if a.layout, err = c.readVxattr(src, xattrDirLayout); err != nil {
			return a, err
		}
	}
	if a.maxBytes, a.maxFiles, err = c.readQuota(src); err != nil {
		return a, err
	}
	if a.layout != "" && c.opts.Pool != "" {
		a.layout = withPool(a.layout, c.opts.Pool)
	}
	return a, nil
}

// readVxattr reads a ceph.* vxattr of path, "" when it is not set.
func (c *Copier) readVxattr(path, name string) (string, error) {
	v, err := c.fs.GetXattr(path, name)
	if store.ErrnoOf(err) == syscall.ENODATA {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(v)), nil
}

// withPool is layout l (ceph.dir.layout syntax) with its pool replaced
// by pool, and no namespace.
func withPool(l, pool string) string {
	var out []string
	for _, kv := range strings.Fields(l) {
		if k, _, _ := strings.Cut(kv, "="); k == "pool" || k == "pool_namespace" {
			continue
		}
		out = append(out, kv)
	}
	return strings.Join(append(out, "pool="+pool), " ")
}

// setDirLayout gives directory dst the source's layout, if it has one.
func (c *Copier) setDirLayout(dst string, a dirAttrs) error {
	return c.setVxattr(dst, xattrDirLayout, a.layout)
}

// setDirQuota gives directory dst the source's quotas, if it has any.
func (c *Copier) setDirQuota(dst string, a dirAttrs) error {
	if err := c.setVxattr(dst, xattrMaxBytes, a.maxBytes); err != nil {
		return err
	}
	return c.setVxattr(dst, xattrMaxFiles, a.maxFiles)
}

// setVxattr sets vxattr name of dst to v unless v is "" or dst has it
// already.
func (c *Copier) setVxattr(dst, name, v string) error {
	if v == "" {
		return nil
	}
	if have, err := c.readVxattr(dst, name); err == nil && sameVxattr(name, have, v) {
		return nil
	}
	xs := []cephfs.Xattr{{Name: name, Value: v}}
	if name == xattrDirLayout {
		xs = cephfs.LayoutXattrs(name, v)
	}
	for _, x := range xs {
		if err := c.fs.SetXattr(dst, x.Name, []byte(x.Value)); err != nil {
			if e := store.ErrnoOf(err); e == syscall.EACCES || e == syscall.EPERM {
				return fmt.Errorf("set %s=%q on cephfs:%s: needs MDS caps with 'p' (e.g. 'allow rwp'); --no-preserve leaves directory layouts and quotas out: %w",
					x.Name, x.Value, dst, err)
			}
			return fmt.Errorf("set %s=%q on cephfs:%s: %w", x.Name, x.Value, dst, err)
		}
	}
	return nil
}

// sameVxattr compares two values of vxattr name: layouts by their fields,
// in any order.
func sameVxattr(name, a, b string) bool {
	if name != xattrDirLayout {
		return a == b
	}
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) != len(fb) {
		return false
	}
	set := map[string]bool{}
	for _, f := range fa {
		set[f] = true
	}
	for _, f := range fb {
		if !set[f] {
			return false
		}
	}
	return true
}

// FinishDir gives directory dst what a tree copy gives each directory it
// copies, from directory src: its layout, xattrs and quotas, then its
// mode, owner and times (set last, and checked; see setDirTimes). With
// NoPreserve only the mode, without setuid, setgid and group/other
// write. Subvolume clones call it for the subvolume's root, whose entries
// were copied into a staging directory and moved into it.
func (c *Copier) FinishDir(src, dst string) error {
	st, err := c.fs.Lstat(src)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("cephfs:%s is a %s, not a directory", src, st.Type())
	}
	if c.opts.NoPreserve {
		have, err := c.fs.Lstat(dst)
		if err != nil {
			return err
		}
		return c.fs.SetAttrs(dst, cephfs.Attrs{Mode: st.Perm() &^ 0o6022, UID: have.UID, GID: have.GID,
			Atime: have.Atime, Mtime: have.Mtime}, false)
	}
	a, err := c.readDirAttrs(src)
	if err != nil {
		return err
	}
	if err := c.setDirLayout(dst, a); err != nil {
		return err
	}
	if err := c.copyXattrs(src, dst); err != nil {
		return err
	}
	if err := c.setDirQuota(dst, a); err != nil {
		return err
	}
	return c.setDirTimes(dst, st)
}

// readQuota reads the quotas set on directory dir (one request to the
// MDS): max_bytes and max_files, "" for each not set (0 is no quota).
func (c *Copier) readQuota(dir string) (maxBytes, maxFiles string, err error) {
	quota, err := c.readVxattr(dir, xattrQuota)
	if err != nil {
		return "", "", err
	}
	for _, kv := range strings.Fields(quota) {
		switch k, v, _ := strings.Cut(kv, "="); k {
		case "max_bytes":
			maxBytes = v
		case "max_files":
			maxFiles = v
		}
	}
	if maxBytes == "0" {
		maxBytes = ""
	}
	if maxFiles == "0" {
		maxFiles = ""
	}
	return maxBytes, maxFiles, nil
}
