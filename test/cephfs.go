package test

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
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
	return MountWith(t, nil)
}

// MountWith is Mount with client options set before mounting
// (client_oc_max_dirty_age: "600").
func MountWith(t testing.TB, options map[string]string) *gocephfs.MountInfo {
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
	for k, v := range options {
		if err := m.SetConfigOption(k, v); err != nil {
			t.Fatalf("client option %s=%s: %v", k, v, err)
		}
	}
	if err := m.Mount(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Unmount(); m.Release() })
	return m
}

// ReadFile reads the whole file at p through mount; ok is false when it
// does not exist.
func ReadFile(t testing.TB, mount *gocephfs.MountInfo, p string) (data []byte, ok bool) {
	t.Helper()
	st, err := mount.Statx(p, gocephfs.StatxSize, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "ret=-2") {
			return nil, false
		}
		t.Fatal(err)
	}
	f, err := mount.Open(p, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, st.Size)
	for n := 0; n < len(buf); {
		k, err := f.ReadAt(buf[n:], int64(n))
		if err != nil {
			t.Fatalf("read %s at %d: %v", p, n, err)
		}
		n += k
	}
	return buf, true
}

// WriteFile creates the file at p through mount (it must not exist),
// writes data into it and fsyncs it.
func WriteFile(t testing.TB, mount *gocephfs.MountInfo, p string, data []byte) {
	t.Helper()
	f, err := mount.Open(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(data) > 0 {
		if _, err := f.WriteAt(data, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Fsync(gocephfs.SyncAll); err != nil {
		t.Fatal(err)
	}
}

// FSDir makes a directory of t's own at the root of mount's file system
// and returns its path; it is removed, with everything in it, when t ends.
func FSDir(t testing.TB, mount *gocephfs.MountInfo) string {
	t.Helper()
	dir := "/" + UniqueName(t)
	if err := mount.MakeDir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	RemoveTree(t, mount, dir)
	return dir
}

// Names lists directory dir's entries through mount, without . and ..,
// in the order the MDS gives them.
func Names(t testing.TB, mount *gocephfs.MountInfo, dir string) []string {
	t.Helper()
	d, err := mount.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var out []string
	for {
		de, err := d.ReadDir()
		if err != nil {
			t.Fatal(err)
		}
		if de == nil {
			return out
		}
		if de.Name() != "." && de.Name() != ".." {
			out = append(out, de.Name())
		}
	}
}
