package cephfs_test

import (
	"strings"
	"testing"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/test"
)

// SnapRstat answers as `ceph config get mds mds_snap_rstat` does (off on
// the test cluster, as by default).
func TestSnapRstat(t *testing.T) {
	conn, _ := test.MountFS(t)
	if conn == nil {
		return
	}
	on, err := cephfs.SnapRstat(conn)
	want := strings.TrimSpace(test.Ceph(t, "config", "get", "mds", "mds_snap_rstat"))
	if err != nil || want != "false" || on {
		t.Fatalf("SnapRstat: %v, %v; ceph config get says %q", on, err, want)
	}
}
