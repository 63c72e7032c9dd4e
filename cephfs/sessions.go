package cephfs

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// MDSInstances names the MDS daemons this client has sessions with, and
// each session's state, as the client's admin socket tells them
// (mds_sessions). The name changes when an MDS restarts or fails over (the
// daemon that takes the rank has another address, or at least another
// nonce) and while the client reconnects to it. Reading it costs no MDS
// round trip.
func (f *FS) MDSInstances() (string, error) {
	var out struct {
		Sessions []struct {
			MDS   int             `json:"mds"`
			Addrs json.RawMessage `json:"addrs"`
			State string          `json:"state"`
		} `json:"sessions"`
	}
	if err := adminCommand(f.asok, "mds_sessions", &out); err != nil {
		return "", fmt.Errorf("MDS sessions: %w", err)
	}
	var names []string
	for _, s := range out.Sessions {
		names = append(names, fmt.Sprintf("mds.%d %s %s", s.MDS, s.Addrs, s.State))
	}
	sort.Strings(names)
	return strings.Join(names, "; "), nil
}
