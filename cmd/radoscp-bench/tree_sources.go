package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"syscall"
	"time"

	"github.com/radoscp/radoscp/cephfs"
)

// xattrStaged marks a tree scenario's source directory as complete, with
// what it holds, so that a run with --keep reuses it.
const xattrStaged = "user.radoscp-bench.staged"

// stageTreeSources makes src, a tree scenario's sources: for smallfiles,
// n files of 4-64 KiB (the same sizes and contents for the same n) in
// directories of 100 files, ten to a parent; for tree, a copy of the local
// directory local with its modes, owners, times and symlinks. A src
// marked as holding the same is kept.
func stageTreeSources(cfs *cephfs.FS, dir, src, kind, local string, n int) error {
	what := fmt.Sprintf("%s %d", kind, n)
	if kind == "tree" {
		what = "tree " + local
	}
	if v, err := cfs.GetXattr(src, xattrStaged); err == nil && string(v) == what {
		return nil
	}
	if err := cfs.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if err := removeFSTree(cfs, src); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var err error
	if kind == "tree" {
		err = stageLocalTree(cfs, local, src)
	} else {
		err = stageSmallFiles(cfs, src, n)
	}
	if err == nil {
		err = cfs.SyncFS()
	}
	if err == nil {
		err = cfs.SetXattr(src, xattrStaged, []byte(what))
	}
	return err
}

// smallFileSize is file i's size: 4-64 KiB, the same for every run.
func smallFileSize(rng *rand.Rand) uint64 { return 4<<10 + rng.Uint64N(60<<10+1) }

func stageSmallFiles(cfs *cephfs.FS, src string, n int) error {
	rng := rand.New(rand.NewPCG(uint64(n), 15))
	buf := make([]byte, 64<<10)
	for i := range n {
		leaf := path.Join(src, fmt.Sprintf("d%02d", i/1000), fmt.Sprintf("d%d", i/100%10))
		if i%100 == 0 {
			for _, d := range []string{src, path.Dir(leaf), leaf} {
				if err := cfs.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
					return err
				}
			}
		}
		b := buf[:smallFileSize(rng)]
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		if err := writeFSFile(cfs, path.Join(leaf, fmt.Sprintf("f%04d", i)), 0o644, b); err != nil {
			return err
		}
	}
	return nil
}

func writeFSFile(cfs *cephfs.FS, p string, perm uint32, data []byte) error {
	fl, err := cfs.CreateExclusive(p, perm)
	if err != nil {
		return err
	}
	if len(data) > 0 {
		err = fl.WriteAt(data, 0)
	}
	if cerr := fl.Close(); err == nil {
		err = cerr
	}
	return err
}

// stageLocalTree copies the local directory local to the new CephFS
// directory dst: directories, regular files and symlinks, with their
// modes, owners and times (directories' last); anything else is left out.
func stageLocalTree(cfs *cephfs.FS, local, dst string) error {
	type dirAttrs struct {
		path string
		a    cephfs.Attrs
	}
	var dirs []dirAttrs
	err := filepath.WalkDir(local, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(local, p)
		if err != nil {
			return err
		}
		to := path.Join(dst, filepath.ToSlash(rel))
		info, err := d.Info()
		if err != nil {
			return err
		}
		a := localAttrs(info)
		switch {
		case d.IsDir():
			if err := cfs.Mkdir(to, 0o700); err != nil {
				return err
			}
			dirs = append(dirs, dirAttrs{to, a})
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err == nil {
				err = cfs.Symlink(target, to)
			}
			if err == nil {
				err = cfs.SetAttrs(to, a, true)
			}
			return err
		case d.Type().IsRegular():
			data, err := readLocal(p)
			if err == nil {
				err = writeFSFile(cfs, to, 0o600, data)
			}
			if err == nil {
				err = cfs.SetAttrs(to, a, false)
			}
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("staging %s into cephfs:%s: %w", local, dst, err)
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := cfs.SetAttrs(dirs[i].path, dirs[i].a, false); err != nil {
			return err
		}
	}
	return nil
}

func readLocal(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func localAttrs(info fs.FileInfo) cephfs.Attrs {
	a := cephfs.Attrs{Mode: uint32(info.Mode().Perm()), Mtime: info.ModTime(), Atime: info.ModTime()}
	if info.Mode()&fs.ModeSetuid != 0 {
		a.Mode |= 0o4000
	}
	if info.Mode()&fs.ModeSetgid != 0 {
		a.Mode |= 0o2000
	}
	if info.Mode()&fs.ModeSticky != 0 {
		a.Mode |= 0o1000
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		a.UID, a.GID = st.Uid, st.Gid
		a.Atime = time.Unix(st.Atim.Sec, st.Atim.Nsec)
	}
	return a
}
