package radoscp_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// Files written through libcephfs with several layouts: the objects rados
// reads from the data pool hold exactly the bytes layout's mapping says.
func TestLayoutMatchesCephFSObjects(t *testing.T) {
	mount := test.Mount(t)
	c := connectAdmin(t)
	pool, err := c.OpenPool("cephfs_data", "")
	if err != nil {
		t.Fatal(err)
	}
	dir := "/" + test.UniqueName(t)
	if err := mount.MakeDirs(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	test.RemoveTree(t, mount, dir)
	for i, l := range []layout.Layout{
		{StripeUnit: 64 << 10, StripeCount: 3, ObjectSize: 256 << 10},
		{StripeUnit: 128 << 10, StripeCount: 2, ObjectSize: 128 << 10},
		{StripeUnit: 1 << 20, StripeCount: 1, ObjectSize: 1 << 20},
	} {
		t.Run(l.String(), func(t *testing.T) {
			path := fmt.Sprintf("%s/f%d", dir, i)
			f, err := mount.Open(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			// A layout can be set only while the file is empty.
			if err := mount.SetXattr(path, "ceph.file.layout", []byte(l.String()), 0); err != nil {
				t.Fatalf("set layout %s: %v", l, err)
			}
			data := randomData(uint64(i), int(3*l.SetSize()+12345))
			if _, err := f.WriteAt(data, 0); err != nil {
				t.Fatal(err)
			}
			if err := f.Fsync(cephfs.SyncAll); err != nil {
				t.Fatal(err)
			}
			f.Close()
			st, err := mount.Statx(path, cephfs.StatxIno, 0)
			if err != nil {
				t.Fatal(err)
			}
			names := layout.CephFS(uint64(st.Inode))
			var objs store.Objects = pool
			assertEqual(t, "file read through the layout mapping", readFile(t, objs, l, names, 0, uint64(len(data))), data)
			for obj := range l.ObjectsFor(uint64(len(data))) {
				s, err := pool.Stat(names.ObjectName(obj))
				if err != nil || s.Size != l.ObjectLength(uint64(len(data)), obj) {
					t.Fatalf("object %d: size %d, %v; want %d", obj, s.Size, err, l.ObjectLength(uint64(len(data)), obj))
				}
			}
		})
	}
}
