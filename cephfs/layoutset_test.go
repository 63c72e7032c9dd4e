package cephfs

import (
	"reflect"
	"testing"
)

// Runs without a cluster: values the MDS's whole-layout grammar refuses
// are set through their own vxattrs, after the rest.
func TestLayoutXattrs(t *testing.T) {
	for _, c := range []struct {
		layout string
		want   []Xattr
	}{
		{"stripe_unit=65536 stripe_count=2 object_size=1048576 pool=cephfs_data2",
			[]Xattr{{"ceph.dir.layout", "stripe_unit=65536 stripe_count=2 object_size=1048576 pool=cephfs_data2"}}},
		{"stripe_unit=4194304 stripe_count=1 object_size=4194304 pool=cephfs-ec pool_namespace=team-a",
			[]Xattr{{"ceph.dir.layout", "stripe_unit=4194304 stripe_count=1 object_size=4194304"},
				{"ceph.dir.layout.pool", "cephfs-ec"}, {"ceph.dir.layout.pool_namespace", "team-a"}}},
		{"pool=a-b", []Xattr{{"ceph.dir.layout.pool", "a-b"}}},
	} {
		if got := LayoutXattrs("ceph.dir.layout", c.layout); !reflect.DeepEqual(got, c.want) {
			t.Errorf("LayoutXattrs(%q) = %q, want %q", c.layout, got, c.want)
		}
	}
}
