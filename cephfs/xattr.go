package cephfs

import "strings"

// UserXattrs reads the user.* xattrs of path, without following a final
// symlink. Other namespaces are not copied: ceph.* are virtual (layouts,
// quotas), security.* and trusted.* belong to the system that set them.
func (f *FS) UserXattrs(path string) (map[string][]byte, error) {
	names, err := f.m.LlistXattr(path)
	if err != nil {
		return nil, pathError("list xattrs", path, err)
	}
	out := map[string][]byte{}
	for _, n := range names {
		if !strings.HasPrefix(n, "user.") {
			continue
		}
		v, err := f.m.LgetXattr(path, n)
		if err != nil {
			return nil, pathError("get xattr "+n, path, err)
		}
		out[n] = v
	}
	return out, nil
}

// SetXattr sets xattr name of path (not following a final symlink).
func (f *FS) SetXattr(path, name string, value []byte) error {
	return pathError("set xattr "+name, path, f.m.LsetXattr(path, name, value, 0))
}

// GetXattr reads xattr name of path; a missing one gives ENODATA.
func (f *FS) GetXattr(path, name string) ([]byte, error) {
	v, err := f.m.LgetXattr(path, name)
	if err != nil {
		return nil, pathError("get xattr "+name, path, err)
	}
	return v, nil
}

// RemoveXattr removes xattr name of path.
func (f *FS) RemoveXattr(path, name string) error {
	return pathError("remove xattr "+name, path, f.m.LremoveXattr(path, name))
}
