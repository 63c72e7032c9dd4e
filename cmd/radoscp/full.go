package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/store"
)

// A full cluster or a pool over its quota makes librados hold writes until
// space is freed, silently. radoscp's pools fail such writes instead
// (rados.failWhenFull), and a copy into a pool the OSD map already marks
// full is refused before anything is written.

// poolSpace is what the OSD map says of one pool's space.
type poolSpace struct {
	Name      string `json:"pool_name"`
	Flags     string `json:"flags_names"`
	MaxBytes  uint64 `json:"quota_max_bytes"`
	MaxObject uint64 `json:"quota_max_objects"`
}

// checkPoolSpace fails when the OSD map marks pool full: over its quota
// (EDQUOT) or an OSD full (ENOSPC). A client that may not read the OSD
// map (no mon 'allow r') skips the check: the writes then fail as fast.
func checkPoolSpace(conn *rados.Conn, pool string) error {
	for _, p := range poolsSpace(conn) {
		if err := p.full(); p.Name == pool && err != nil {
			return fmt.Errorf("%w; nothing was written", err)
		}
	}
	return nil
}

// poolsSpace is every pool's space as the OSD map says, or none when the
// client may not read it.
func poolsSpace(conn *rados.Conn) []poolSpace {
	cmd, _ := json.Marshal(map[string]string{"prefix": "osd dump", "format": "json"})
	out, _, err := conn.Raw().MonCommand(cmd)
	if err != nil {
		return nil
	}
	var m struct {
		Pools []poolSpace `json:"pools"`
	}
	if json.Unmarshal(out, &m) != nil {
		return nil
	}
	return m.Pools
}

func (p poolSpace) full() error {
	flags := strings.Split(p.Flags, ",")
	has := func(f string) bool {
		for _, g := range flags {
			if g == f {
				return true
			}
		}
		return false
	}
	switch {
	case has("full_quota"):
		var q []string
		if p.MaxBytes > 0 {
			q = append(q, fmt.Sprintf("max_bytes %d", p.MaxBytes))
		}
		if p.MaxObject > 0 {
			q = append(q, fmt.Sprintf("max_objects %d", p.MaxObject))
		}
		return fmt.Errorf("pool %s is over its quota (%s): %w", p.Name, strings.Join(q, ", "), errnoName{syscall.EDQUOT})
	case has("full"):
		return fmt.Errorf("pool %s is full (an OSD it uses is full): %w", p.Name, errnoName{syscall.ENOSPC})
	}
	return nil
}

// spaceHint is what an operator can do about a copy that failed because
// a pool filled up, or "".
func spaceHint(err error) string {
	switch {
	case errors.Is(err, fscopy.ErrDirQuota):
		return "raise that directory's quota (setfattr -n ceph.quota.max_bytes -v BYTES DIR, or ceph.quota.max_files) or free space under it, then run the copy again: files already in place are skipped, and --resume continues a file whose staging file was kept"
	case errors.Is(err, syscall.EDQUOT):
		return "the destination pool is over its quota: raise it (ceph osd pool set-quota POOL max_bytes N) or free space, then run the copy again with --resume"
	case errors.Is(err, syscall.ENOSPC):
		return "the cluster is full (ceph health detail names the OSD): free space or add capacity, then run the copy again with --resume"
	}
	return ""
}

// errnoName is an errno that prints as Ceph names it ("EDQUOT").
type errnoName struct{ errno syscall.Errno }

func (e errnoName) Error() string { return store.ErrnoName(e.errno) }
func (e errnoName) Unwrap() error { return e.errno }
