package test

import (
	"encoding/json"
	"strings"
	"testing"
)

// MDSRequests is the active MDS's count of client requests of each kind
// (its mds_server perf counters, req_KIND_latency's avgcount), read with
// ceph tell: the MDS's own word on what a copy asked of it. The counts
// are the whole cluster's: a test reading them runs alone on it.
func MDSRequests(t testing.TB) map[string]uint64 {
	t.Helper()
	out := Ceph(t, "tell", "mds.0", "perf", "dump", "mds_server")
	var dump struct {
		Server map[string]json.RawMessage `json:"mds_server"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &dump); err != nil {
		t.Fatalf("mds perf dump: %v\n%s", err, out)
	}
	counts := map[string]uint64{}
	for k, v := range dump.Server {
		var lat struct{ Avgcount uint64 }
		if name, ok := strings.CutPrefix(k, "req_"); ok && json.Unmarshal(v, &lat) == nil {
			counts[strings.TrimSuffix(name, "_latency")] = lat.Avgcount
		}
	}
	return counts
}

// RequestsSince is the requests of each kind counted between two
// MDSRequests.
func RequestsSince(before, after map[string]uint64) map[string]uint64 {
	d := map[string]uint64{}
	for k, v := range after {
		if v > before[k] {
			d[k] = v - before[k]
		}
	}
	return d
}
