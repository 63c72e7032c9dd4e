package cephfs

import (
	"encoding/json"
	"fmt"

	"github.com/radoscp/radoscp/rados"
)

// What the cluster says of its file systems, asked of the monitors and
// the client's configuration rather than of a mount.

// DataPools returns the data pools of file system name ("": the only one
// there is), with its name; ok is false when there is no such file system
// (or, for "", more than one). Implements: the monitor command
// {"prefix": "fs ls"} (rados_mon_command).
func DataPools(conn *rados.Conn, name string) (fsName string, pools []string, ok bool, err error) {
	out, _, err := conn.Raw().MonCommand([]byte(`{"prefix":"fs ls","format":"json"}`))
	if err != nil {
		return "", nil, false, fmt.Errorf("list file systems: %w", rados.ErrnoError("mon command", "fs ls", err))
	}
	var fss []struct {
		Name      string   `json:"name"`
		DataPools []string `json:"data_pools"`
	}
	if err := json.Unmarshal(out, &fss); err != nil {
		return "", nil, false, fmt.Errorf("list file systems: %w", err)
	}
	for _, fs := range fss {
		if fs.Name == name || (name == "" && len(fss) == 1) {
			return fs.Name, fs.DataPools, true, nil
		}
	}
	return "", nil, false, nil
}

// SnapDir is the name of the snapshot directory for conn's client:
// client_snapdir, ".snap" unless configured otherwise.
func SnapDir(conn *rados.Conn) string {
	if v, err := conn.Raw().GetConfigOption("client_snapdir"); err == nil && v != "" {
		return v
	}
	return ".snap"
}
