package test

import (
	"path"
	"testing"

	gocephfs "github.com/ceph/go-ceph/cephfs"
)

// RemoveTree removes dir and everything under it through mount, when t
// ends, so that tests do not fill the throwaway cluster's small OSDs. The
// MDS frees the objects of removed files in the background.
func RemoveTree(t testing.TB, mount *gocephfs.MountInfo, dir string) {
	t.Cleanup(func() {
		if err := removeTree(mount, dir); err != nil {
			t.Logf("cleaning up %s: %v", dir, err)
		}
	})
}

func removeTree(m *gocephfs.MountInfo, p string) error {
	st, err := m.Statx(p, gocephfs.StatxMode, gocephfs.AtSymlinkNofollow)
	if err != nil {
		return err
	}
	if st.Mode&0o170000 != 0o040000 {
		return m.Unlink(p)
	}
	d, err := m.OpenDir(p)
	if err != nil {
		return err
	}
	var names []string
	for {
		e, err := d.ReadDir()
		if err != nil {
			d.Close()
			return err
		}
		if e == nil {
			break
		}
		if e.Name() != "." && e.Name() != ".." {
			names = append(names, e.Name())
		}
	}
	d.Close()
	for _, n := range names {
		if err := removeTree(m, path.Join(p, n)); err != nil {
			return err
		}
	}
	return m.RemoveDir(p)
}

// Mount mounts the test cluster's CephFS as a client of its own (a second
// client next to the one under test), unmounted when t ends. Without a
// CephFS the test is skipped, or fails as FS says.
func Mount(t testing.TB) *gocephfs.MountInfo {
	t.Helper()
	conf := FS(t)
	if conf == "" {
		return nil
	}
	m, err := gocephfs.CreateMount()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.ReadConfigFile(conf); err != nil {
		t.Fatal(err)
	}
	if err := m.Mount(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Unmount(); m.Release() })
	return m
}
