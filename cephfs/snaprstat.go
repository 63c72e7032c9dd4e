package cephfs

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/radoscp/radoscp/rados"
)

// SnapRstat reports whether the MDSs keep the rstats of snapshotted
// directories apart from the live ones' (mds_snap_rstat, off by default,
// as the monitors' configuration database has it for the mds section;
// an MDS's own ceph.conf is not seen). Off, a directory's rctime in a
// snapshot is the live directory's. Implements: the monitor command
// {"prefix": "config get", "who": "mds", "key": "mds_snap_rstat"}.
func SnapRstat(conn *rados.Conn) (bool, error) {
	out, _, err := conn.Raw().MonCommand([]byte(`{"prefix":"config get","who":"mds","key":"mds_snap_rstat"}`))
	if err != nil {
		return false, fmt.Errorf("config get mds mds_snap_rstat: %w", rados.ErrnoError("mon command", "config get", err))
	}
	on, err := strconv.ParseBool(strings.TrimSpace(string(out)))
	if err != nil {
		return false, fmt.Errorf("config get mds mds_snap_rstat: %q: %w", out, err)
	}
	return on, nil
}
