package truncate_test

import (
	"path"
	"strconv"
	"testing"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/test"
	"github.com/radoscp/radoscp/truncate"
	"github.com/radoscp/radoscp/truncate/desttest"
)

// small keeps the real sequences quick: an object set is 64 KiB.
var small = layout.Layout{StripeUnit: 64 << 10, StripeCount: 1, ObjectSize: 64 << 10}

func TestConformanceRealRaw(t *testing.T) {
	conf := test.Conf(t)
	p := test.OpenPool(t, conf, "radoscp-b")
	prefix := test.UniqueName(t)
	desttest.Run(t, desttest.Subject{
		Layout: small,
		New: func(t *testing.T) radoscp.Destination {
			return truncate.NewRaw(p, small, prefix+"-"+strconv.Itoa(len(t.Name())), 0)
		},
		Trims: true,
	}, p)
}

// The striper's size is read back by a second connection, as another
// client's `rados --striper stat` would.
func TestConformanceRealStriper(t *testing.T) {
	conf := test.Conf(t)
	p := test.OpenPool(t, conf, "radoscp-b")
	desttest.Run(t, striperSubject(p, test.OpenPool(t, conf, "radoscp-b"), small, test.UniqueName(t)), p)
}

// A CephFS staging file's size is read back through a second CephFS
// client, by path.
func TestConformanceRealCephFS(t *testing.T) {
	conn, fs := test.MountFS(t)
	if fs == nil {
		return
	}
	reader := test.Mount(t)
	dir := "/" + test.UniqueName(t)
	if err := fs.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	test.RemoveTree(t, reader, dir)
	pool, err := conn.OpenPool("cephfs_data", "")
	if err != nil {
		t.Fatal(err)
	}
	type opened struct {
		file *cephfs.File
		path string
	}
	files := map[radoscp.Destination]opened{}
	n := 0
	desttest.Run(t, desttest.Subject{
		Layout: small,
		New: func(t *testing.T) radoscp.Destination {
			n++
			p := path.Join(dir, strconv.Itoa(n))
			f, err := fs.CreateExclusive(p, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			if err := f.SetLayout(cephfs.FileLayout{Layout: small, Pool: "cephfs_data"}); err != nil {
				t.Fatal(err)
			}
			d, err := truncate.NewCephFS(f, pool, small)
			if err != nil {
				t.Fatal(err)
			}
			files[d] = opened{f, p}
			return d
		},
		Reopen: func(t *testing.T, old radoscp.Destination, limit uint64) radoscp.Destination {
			o := files[old]
			d, err := truncate.ResumeCephFS(o.file, pool, small, limit)
			if err != nil {
				t.Fatal(err)
			}
			files[d] = o
			return d
		},
		Visible: func(t *testing.T, d radoscp.Destination) uint64 {
			st, err := reader.Statx(files[d].path, gocephfs.StatxSize, 0)
			if err != nil {
				t.Fatal(err)
			}
			return st.Size
		},
		Records: true,
	}, pool)
}
