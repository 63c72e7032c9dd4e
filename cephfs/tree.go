package cephfs

// Mkdir makes directory path with permissions perm.
func (f *FS) Mkdir(path string, perm uint32) error {
	if f.below(path) {
		return f.mkdirIn(path, perm)
	}
	return pathError("mkdir", path, f.m.MakeDir(path, perm))
}

// Readlink reads the target of symlink path.
func (f *FS) Readlink(path string) (string, error) {
	t, err := f.m.Readlink(path)
	if err != nil {
		return "", pathError("readlink", path, err)
	}
	return t, nil
}

// Symlink makes path a symlink to target.
func (f *FS) Symlink(target, path string) error {
	if f.below(path) {
		return f.symlinkIn(target, path)
	}
	return pathError("symlink", path, f.m.Symlink(target, path))
}

// Rename renames from to to, replacing to if it exists (atomically, as
// rename(2)).
func (f *FS) Rename(from, to string) error {
	if f.below(from) || f.below(to) {
		return f.renameIn(from, to)
	}
	return pathError("rename to "+to, from, f.m.Rename(from, to))
}

// Unlink removes the file or symlink path.
func (f *FS) Unlink(path string) error {
	if f.below(path) {
		return f.unlinkIn(path)
	}
	return pathError("unlink", path, f.m.Unlink(path))
}

// Rmdir removes the empty directory path.
func (f *FS) Rmdir(path string) error {
	if f.below(path) {
		return f.rmdirIn(path)
	}
	return pathError("rmdir", path, f.m.RemoveDir(path))
}

// Link makes path a new hard link to the existing file target (link(2)).
func (f *FS) Link(target, path string) error {
	if f.below(target) || f.below(path) {
		return f.linkIn(target, path)
	}
	return pathError("link to "+target, path, f.m.Link(target, path))
}
