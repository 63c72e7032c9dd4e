package fscopy_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

// fuseView reads the test's files back through a ceph-fuse mount: cmp,
// stat, getfattr, no radoscp code.
type fuseView struct {
	t    *testing.T
	root string
}

func (v fuseView) local(p string) string { return filepath.Join(v.root, p) }

// pool is the data pool of p's layout.
func (v fuseView) pool(p string) string {
	v.t.Helper()
	return strings.TrimSpace(test.Run(v.t, "getfattr", "--only-values", "-n", "ceph.file.layout.pool", v.local(p)))
}

// inode is p's inode number and link count, as stat -c '%i %h' gives them.
func (v fuseView) inode(p string) string {
	v.t.Helper()
	return strings.TrimSpace(test.Run(v.t, "stat", "-c", "%i %h", v.local(p)))
}

// cmp fails the test unless p holds want.
func (v fuseView) cmp(p string, want []byte) {
	v.t.Helper()
	f := filepath.Join(v.t.TempDir(), "want")
	if err := os.WriteFile(f, want, 0o600); err != nil {
		v.t.Fatal(err)
	}
	test.Run(v.t, "cmp", f, v.local(p))
}

// A program holding a file open across a migrate (a second client opened
// it before the migrate started) writes and fsyncs after the rename, into
// the replaced inode. The migrate fails, naming it, and keeps the old
// inode's data under NAME.radoscp-orphan-INO next to the file: through
// ceph-fuse, the file holds the data as migrated, in the new pool, and
// the recovery name the written data, in the old pool. Before, the
// migrate exited 0 and the write was lost once the writer closed the
// file. Normal and slow copier.
func TestMigrateKeepsWritesAcrossTheRename(t *testing.T) {
	v := fuseView{t: t, root: test.FuseMount(t)}
	eachClient(t, func(t *testing.T, slow float64) {
		v := fuseView{t: t, root: v.root}
		e := newEnv(t)
		p := e.path("f")
		data := test.RandomData(91, 3<<20+7)
		e.write(t, p, nil, 0o644, map[uint64][]byte{0: data})
		st, err := e.fs.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := e.other.Open(p, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		late := []byte("written after the rename")
		wrote := false
		o := fscopy.Options{Pool: "cephfs_data2"}
		fscopy.SetAfterRename(&o, func(dst string) {
			if _, err := f.WriteAt(late, 100); err != nil {
				t.Error(err)
			}
			if err := f.Fsync(gocephfs.SyncAll); err != nil {
				t.Error(err)
			}
			wrote = true
		})
		var reports []fscopy.Report
		_, err = mountCopier(t, slow).copier(t, o, &reports).Migrate(ctx, e.dir)
		if !wrote {
			t.Fatal("no file was renamed: the write across the rename was never made, the case is void")
		}
		if err == nil {
			t.Fatal("migrate exited 0 though a write went to the replaced inode")
		}
		if len(reports) != 1 || !errors.Is(reports[0].Err, fscopy.ErrWrittenAcross) {
			t.Fatalf("reports %+v; want the file reported %v", reports, fscopy.ErrWrittenAcross)
		}
		orphan := e.path(fmt.Sprintf("f.radoscp-orphan-%x", st.Ino))
		if !strings.Contains(reports[0].Err.Error(), orphan) {
			t.Errorf("the error %q does not name the recovery name %s", reports[0].Err, orphan)
		}
		written := append(append(append([]byte{}, data[:100]...), late...), data[100+len(late):]...)
		v.cmp(p, data)
		v.cmp(orphan, written)
		if got := v.pool(p); got != "cephfs_data2" {
			t.Errorf("%s is in pool %s; want cephfs_data2", p, got)
		}
		if got := v.pool(orphan); got != "cephfs_data" {
			t.Errorf("%s is in pool %s; the old inode is in cephfs_data", orphan, got)
		}
		if got, want := v.inode(orphan), fmt.Sprintf("%d 1", st.Ino); got != want {
			t.Errorf("%s is inode/links %q; want the old inode, %q", orphan, got, want)
		}
	})
}
