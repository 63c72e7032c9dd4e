package fscopy_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

// A program holding a file open across a migrate (a second client opened
// it before the migrate started) writes and fsyncs after the rename, into
// the replaced inode. The migrate fails, naming it, and keeps the old
// inode's data under NAME.radoscp-orphan-INO next to the file: through
// ceph-fuse, the file holds the data as migrated, in the new pool, and
// the recovery name the written data, in the old pool. Before, the
// migrate exited 0 and the write was lost once the writer closed the
// file. Normal and slow copier.
func TestMigrateKeepsWritesAcrossTheRename(t *testing.T) {
	eachClientViewed(t, func(t *testing.T, v fuseView, e *env, slow float64) {
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
		var h fscopy.Hooks
		h.AfterRename = func(dst string) {
			if _, err := f.WriteAt(late, 100); err != nil {
				t.Error(err)
			}
			if err := f.Fsync(gocephfs.SyncAll); err != nil {
				t.Error(err)
			}
			wrote = true
		}
		var reports []fscopy.Report
		_, err = mountCopier(t, slow).copierWith(t, o, &reports, h).Migrate(ctx, e.dir)
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
