package cephfs_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/test"
)

// DataPools answers as `ceph fs ls` does, for the file system by name and
// for "" when there is one; a file system that does not exist is not ok.
func TestDataPools(t *testing.T) {
	conn, _ := test.MountFS(t)
	if conn == nil {
		return
	}
	var fss []struct {
		Name      string   `json:"name"`
		DataPools []string `json:"data_pools"`
	}
	if err := json.Unmarshal([]byte(test.Ceph(t, "fs", "ls", "--format", "json")), &fss); err != nil {
		t.Fatal(err)
	}
	for _, fs := range fss {
		name, pools, ok, err := cephfs.DataPools(conn, fs.Name)
		if err != nil || !ok || name != fs.Name || !slices.Equal(pools, fs.DataPools) {
			t.Errorf("DataPools(%q) = %q, %q, %v, %v; want %q, %q", fs.Name, name, pools, ok, err, fs.Name, fs.DataPools)
		}
	}
	if len(fss) == 1 {
		if name, _, ok, err := cephfs.DataPools(conn, ""); err != nil || !ok || name != fss[0].Name {
			t.Errorf(`DataPools("") = %q, %v, %v; want the only file system, %q`, name, ok, err, fss[0].Name)
		}
	}
	if _, _, ok, err := cephfs.DataPools(conn, test.UniqueName(t)); ok || err != nil {
		t.Errorf("DataPools of a file system that does not exist: ok %v, %v", ok, err)
	}
	if got := cephfs.SnapDir(conn); got != ".snap" {
		t.Errorf("SnapDir = %q, want the default .snap", got)
	}
}
