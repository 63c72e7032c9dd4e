package rados

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"syscall"

	"github.com/radoscp/radoscp/store"
)

// A full cluster or a pool over its quota makes librados hold writes until
// space is freed, silently. radoscp's pools fail such writes instead
// (failWhenFull), and a copy into a pool the OSD map already marks full
// is refused before anything is written (PoolFull).

// poolSpace is what the OSD map says of one pool's space.
type poolSpace struct {
	Name      string `json:"pool_name"`
	Flags     string `json:"flags_names"`
	MaxBytes  uint64 `json:"quota_max_bytes"`
	MaxObject uint64 `json:"quota_max_objects"`
}

// PoolFull fails when the OSD map marks pool full: over its quota
// (EDQUOT) or an OSD full (ENOSPC), both errors naming the pool and
// matching the errno, and saying nothing was written (a check before a
// copy). A client that may not read the OSD map (no mon 'allow r'), or
// a pool the map does not list, gives nil: writes then fail as fast
// (failWhenFull).
func (c *Conn) PoolFull(pool string) error {
	if err := c.FullPool([]string{pool}); err != nil {
		return fmt.Errorf("%w; nothing was written", err)
	}
	return nil
}

// FullPool is the error, as PoolFull's without its last words, for the
// first of pools the OSD map marks full or over its quota, or nil (none
// is, or the client may not read the map). It names, after a write
// refused with ENOSPC, which pool refused it. Implements: the monitor
// command {"prefix": "osd dump"} (rados_mon_command).
func (c *Conn) FullPool(pools []string) error {
	cmd, _ := json.Marshal(map[string]string{"prefix": "osd dump", "format": "json"})
	out, _, err := c.rc.MonCommand(cmd)
	if err != nil {
		return nil
	}
	var m struct {
		Pools []poolSpace `json:"pools"`
	}
	if json.Unmarshal(out, &m) != nil {
		return nil
	}
	for _, p := range m.Pools {
		if err := p.full(); err != nil && slices.Contains(pools, p.Name) {
			return err
		}
	}
	return nil
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

// errnoName is an errno that prints as Ceph names it ("EDQUOT").
type errnoName struct{ errno syscall.Errno }

func (e errnoName) Error() string { return store.ErrnoName(e.errno) }
func (e errnoName) Unwrap() error { return e.errno }
