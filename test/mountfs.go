package test

import (
	"testing"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/rados"
)

// MountFS connects to the test cluster as radoscp does for CephFS copies
// (a private client admin socket, no object cache) and mounts its CephFS;
// everything is released when t ends. Without a CephFS the test is
// skipped, or fails as FS says.
func MountFS(t testing.TB) (*rados.Conn, *cephfs.FS) {
	t.Helper()
	conf := FS(t)
	if conf == "" {
		return nil, nil
	}
	s, err := cephfs.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	conn, err := rados.Connect(rados.ConnConfig{ConfPath: conf, Options: s.Options()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	fs, err := s.Mount(conn, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Unmount() })
	return conn, fs
}
