package cephfs

import (
	"testing"

	"github.com/radoscp/radoscp/layout"
)

func TestParseFileLayout(t *testing.T) {
	l, err := parseFileLayout("stripe_unit=65536 stripe_count=3 object_size=262144 pool=cephfs_data2 pool_namespace=ns1")
	want := FileLayout{Layout: layout.Layout{StripeUnit: 64 << 10, StripeCount: 3, ObjectSize: 256 << 10}, Pool: "cephfs_data2", Namespace: "ns1"}
	if err != nil || l != want {
		t.Fatalf("got %+v, %v; want %+v", l, err, want)
	}
	if back, err := parseFileLayout(l.String()); err != nil || back != l {
		t.Fatalf("String %q does not parse back: %+v, %v", l.String(), back, err)
	}
	for _, bad := range []string{"stripe_unit=65536 stripe_count=3 object_size=262144", "stripe_unit=1000 stripe_count=1 object_size=1000 pool=p"} {
		if _, err := parseFileLayout(bad); err == nil {
			t.Errorf("parsed %q", bad)
		}
	}
}
