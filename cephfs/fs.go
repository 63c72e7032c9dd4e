package cephfs

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/rados"
)

// FS is a mounted CephFS.
type FS struct {
	m    *gocephfs.MountInfo
	name string
	asok string // the client's admin socket, for Generation

	listings atomic.Uint64 // directories listed, see Listings
	confined confinement   // directories whose writes follow no symlink (confine.go)
	held     heldRoots     // directories paths below are walked from (at.go)
}

// Listings is how many directory listings this client has made (ReadDir,
// InodeRef.ReadDir and ReadDirHeld): what the caller asked for, however
// many requests libcephfs sent the MDS for each.
func (f *FS) Listings() uint64 { return f.listings.Load() }

// Session prepares a rados connection for mounting CephFS: the librados
// options to connect with, and a private directory for the client's admin
// socket. Call Close when the connection is gone.
type Session struct {
	dir string
}

// NewSession makes the private admin socket directory (mode 0700).
func NewSession() (*Session, error) {
	dir, err := os.MkdirTemp("", "radoscp-")
	if err != nil {
		return nil, fmt.Errorf("admin socket directory: %w", err)
	}
	return &Session{dir: dir}, nil
}

// Options are the librados options a connection that mounts CephFS needs:
// an admin socket only this process can reach (Generation reads the
// truncate generation from it), and no client object cache, so that a
// write has reached the OSDs when it returns and a checkpoint recorded
// after it is true even if the process is killed. The client also gives
// back the caps of a closed file with no release delay: about 1 s after
// the close (its next look at them), against 2 s with a delay of 1 and 6 s
// with Ceph's default 5 (TestClosedFileGivesWriteCapsBack logs it). A copy
// holds each copied file until it has (fscopy's settling), and a run waits
// for the last one. Only the caps no open file wants go back; the shared
// caps a stat is answered from are kept. POSIX ACLs are on
// (client_acl_type posix_acl): without it the client refuses to read or
// set the system.posix_acl_* xattrs (EOPNOTSUPP), and a copy would lose
// them; with it the client also checks them, as the kernel client does.
func (s *Session) Options() map[string]string {
	return map[string]string{
		"admin_socket":              s.socket(),
		"client_oc":                 "false",
		"client_caps_release_delay": "0",
		"client_acl_type":           "posix_acl",
	}
}

func (s *Session) socket() string { return filepath.Join(s.dir, "client.asok") }

// Close removes the admin socket directory.
func (s *Session) Close() error { return os.RemoveAll(s.dir) }

// Mount mounts file system name ("" for the default one) over conn, which
// must have been connected with s.Options().
func (s *Session) Mount(conn *rados.Conn, name string) (*FS, error) {
	m, err := gocephfs.CreateFromRados(conn.Raw())
	if err != nil {
		return nil, rados.ErrnoError("create mount", name, err)
	}
	if name != "" {
		if err := m.SelectFilesystem(name); err != nil {
			m.Release()
			return nil, rados.ErrnoError("select file system", name, err)
		}
	}
	if err := m.Mount(); err != nil {
		m.Release()
		what := name
		if what == "" {
			what = "(default file system)"
		}
		return nil, fmt.Errorf("mount CephFS %s: %w", what, rados.ErrnoError("mount", what, err))
	}
	return &FS{m: m, name: name, asok: s.socket()}, nil
}

// Name is the file system's name as given to Mount ("" for the default).
func (fs *FS) Name() string { return fs.name }

// Unmount unmounts and releases the mount.
func (fs *FS) Unmount() error {
	err := fs.m.Unmount()
	if rerr := fs.m.Release(); err == nil {
		err = rerr
	}
	return rados.ErrnoError("unmount", fs.name, err)
}

// SyncFS makes everything written through this mount durable.
func (fs *FS) SyncFS() error { return rados.ErrnoError("sync file system", fs.name, fs.m.SyncFs()) }
