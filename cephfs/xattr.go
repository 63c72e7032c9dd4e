package cephfs

import "strings"

// Xattrs reads the xattrs of path that a copy keeps, without following a
// final symlink: every namespace a client can read and set (user.*,
// security.*, trusted.*, and the POSIX ACLs system.posix_acl_access and
// system.posix_acl_default, which a Session's mount reads and sets), as
// `cp -a` and `rsync -aAX` keep them. Ceph's virtual ceph.* xattrs
// (layouts, quotas) are not among them: they are not stored, and a copy
// handles layouts and quotas itself.
func (f *FS) Xattrs(path string) (xattrs map[string][]byte, err error) {
	if f.onFileAt(path, func(fl *File) { xattrs, err = fl.Xattrs() }) {
		return xattrs, err
	}
	names, err := f.m.LlistXattr(path)
	return keptXattrs(path, names, err, func(n string) ([]byte, error) { return f.m.LgetXattr(path, n) })
}

// Xattrs is FS.Xattrs for the open file: no path is walked.
func (fl *File) Xattrs() (map[string][]byte, error) {
	names, err := fl.f.ListXattr()
	return keptXattrs(fl.path, names, err, fl.f.GetXattr)
}

// keptXattrs reads, of the xattrs names lists (or the error listing
// them gave), those a copy keeps, with get.
func keptXattrs(path string, names []string, err error, get func(string) ([]byte, error)) (map[string][]byte, error) {
	if err != nil {
		return nil, pathError("list xattrs", path, err)
	}
	out := map[string][]byte{}
	for _, n := range names {
		if strings.HasPrefix(n, "ceph.") {
			continue
		}
		v, err := get(n)
		if err != nil {
			return nil, pathError("get xattr "+n, path, err)
		}
		out[n] = v
	}
	return out, nil
}

// SetXattr sets xattr name of path (not following a final symlink).
func (f *FS) SetXattr(path, name string, value []byte) error {
	if f.below(path) || f.confinedItself(path) {
		return f.setXattrIn(path, name, value)
	}
	return pathError("set xattr "+name, path, f.m.LsetXattr(path, name, value, 0))
}

// GetXattr reads xattr name of path; a missing one gives ENODATA.
func (f *FS) GetXattr(path, name string) (v []byte, err error) {
	if f.onFileAt(path, func(fl *File) { v, err = fl.GetXattr(name) }) {
		return v, err
	}
	if v, err = f.m.LgetXattr(path, name); err != nil {
		return nil, pathError("get xattr "+name, path, err)
	}
	return v, nil
}

// RemoveXattr removes xattr name of path.
func (f *FS) RemoveXattr(path, name string) error {
	if f.below(path) || f.confinedItself(path) {
		return f.removeXattrIn(path, name)
	}
	return pathError("remove xattr "+name, path, f.m.LremoveXattr(path, name))
}
