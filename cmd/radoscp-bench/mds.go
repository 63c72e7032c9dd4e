package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/radoscp/radoscp/config"
)

// mdsSample is the active MDS's work so far: the client requests it
// handled (perf counter mds_server.handle_client_request) and, when the
// daemon runs on this machine, its CPU time from /proc. Two samples
// around a contender's run count what that run cost the MDS, which a
// machine's speed does not blur: requests are counted, not timed. The
// bench's own staging and checks run outside the samples.
type mdsSample struct {
	name     string // the daemon's
	requests uint64
	ops      map[string]uint64 // requests by operation (req_OP_latency's avgcount)
	cpu      float64
	cpuKnown bool
}

// mdsCost is what one run cost the MDS.
type mdsCost struct {
	Requests   uint64            `json:"requests"`
	Ops        map[string]uint64 `json:"requests_by_op,omitempty"` // where they went: lookupsnap, getattr, ...
	CPUSeconds float64           `json:"cpu_seconds"`
	CPUKnown   bool              `json:"cpu_measured"` // the MDS runs on this machine
}

// costUntil is the MDS's work from s to a later sample, or nil after a
// failover in between (another daemon, its counters from zero).
func (s mdsSample) costUntil(later mdsSample) *mdsCost {
	if s.name != later.name || later.requests < s.requests {
		return nil
	}
	c := &mdsCost{Requests: later.requests - s.requests, CPUKnown: s.cpuKnown && later.cpuKnown}
	for op, n := range later.ops {
		if d := n - s.ops[op]; n > s.ops[op] {
			if c.Ops == nil {
				c.Ops = map[string]uint64{}
			}
			c.Ops[op] = d
		}
	}
	if c.CPUKnown {
		c.CPUSeconds = later.cpu - s.cpu
	}
	return c
}

// mdsPerFile is the median over runs of the MDS's requests and CPU
// milliseconds per file, each -1 when a run did not measure it.
func mdsPerFile(runs []runRecord, files int) (requests, cpuMs float64) {
	var req, cpu []float64
	for _, r := range runs {
		if r.MDS == nil || files == 0 {
			return -1, -1
		}
		req = append(req, float64(r.MDS.Requests)/float64(files))
		if r.MDS.CPUKnown {
			cpu = append(cpu, r.MDS.CPUSeconds*1000/float64(files))
		}
	}
	requests, cpuMs = median(req), -1
	if len(cpu) == len(runs) {
		cpuMs = median(cpu)
	}
	return requests, cpuMs
}

// sampleMDS reads the sample of the active MDS of rank 0 of file system
// fsName ("" for the only one).
func sampleMDS(ctx context.Context, cfgArgs []string, fsName string) (mdsSample, error) {
	var s mdsSample
	name, err := activeMDS(ctx, cfgArgs, fsName)
	if err != nil {
		return s, err
	}
	out, err := cephCLI(ctx, cfgArgs, "tell", "mds."+name, "perf", "dump", "mds_server")
	if err != nil {
		return s, err
	}
	var dump struct {
		Server map[string]json.RawMessage `json:"mds_server"`
	}
	if err := json.Unmarshal(out, &dump); err != nil {
		return s, fmt.Errorf("mds.%s perf dump mds_server: %w", name, err)
	}
	if err := json.Unmarshal(dump.Server["handle_client_request"], &s.requests); err != nil {
		return s, fmt.Errorf("mds.%s perf dump mds_server: handle_client_request: %w", name, err)
	}
	s.name, s.ops = name, map[string]uint64{}
	for k, v := range dump.Server {
		op, ok := strings.CutPrefix(k, "req_")
		if op, ok = strings.CutSuffix(op, "_latency"); !ok {
			continue
		}
		var lat struct {
			Count uint64 `json:"avgcount"`
		}
		if json.Unmarshal(v, &lat) == nil && lat.Count > 0 {
			s.ops[op] = lat.Count
		}
	}
	if pid, ok := localDaemon("ceph-mds", name, confOf(cfgArgs)); ok {
		if cpu, err := procCPUSeconds(pid); err == nil {
			s.cpu, s.cpuKnown = cpu, true
		}
	}
	return s, nil
}

// activeMDS names the up:active MDS of rank 0.
func activeMDS(ctx context.Context, cfgArgs []string, fsName string) (string, error) {
	out, err := cephCLI(ctx, cfgArgs, "fs", "dump", "--format", "json")
	if err != nil {
		return "", err
	}
	var dump struct {
		FileSystems []struct {
			MDSMap struct {
				Name string `json:"fs_name"`
				Info map[string]struct {
					Name  string `json:"name"`
					Rank  int    `json:"rank"`
					State string `json:"state"`
				} `json:"info"`
			} `json:"mdsmap"`
		} `json:"filesystems"`
	}
	if err := json.Unmarshal(out, &dump); err != nil {
		return "", fmt.Errorf("ceph fs dump: %w", err)
	}
	for _, fs := range dump.FileSystems {
		if fsName != "" && fs.MDSMap.Name != fsName {
			continue
		}
		for _, m := range fs.MDSMap.Info {
			if m.Rank == 0 && m.State == "up:active" {
				return m.Name, nil
			}
		}
	}
	return "", fmt.Errorf("no active MDS of rank 0 in file system %q", fsName)
}

// localDaemon finds the process of daemon prog (ceph-mds) with id name
// on this machine, by its command line ("-i NAME" or "--id NAME"), and
// when conf is set, started with that conf: several clusters on one
// machine (test clusters) each have an mds.a.
func localDaemon(prog, name, conf string) (int, bool) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if filepath.Base(args[0]) != prog || (conf != "" && !slices.Contains(args, conf)) {
			continue
		}
		for _, flag := range []string{"-i", "--id"} {
			if i := slices.Index(args, flag); i >= 0 && i+1 < len(args) && args[i+1] == name {
				pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
				return pid, err == nil
			}
		}
	}
	return 0, false
}

// cliArgs are the connection's settings as the ceph, rados and ceph-fuse
// commands take them.
func cliArgs(cfg config.Config) []string {
	var args []string
	for _, kv := range [][2]string{{"-c", cfg.Conf}, {"--id", cfg.ID}, {"--name", cfg.Name}, {"--keyring", cfg.Keyring}} {
		if kv[1] != "" {
			args = append(args, kv[0], kv[1])
		}
	}
	return args
}

// confOf is the conf path in cliArgs' arguments, absolute, or "".
func confOf(cfgArgs []string) string {
	if i := slices.Index(cfgArgs, "-c"); i >= 0 && i+1 < len(cfgArgs) {
		if abs, err := filepath.Abs(cfgArgs[i+1]); err == nil {
			return abs
		}
	}
	return ""
}

// cephCLI runs the ceph CLI with the connection's arguments.
func cephCLI(ctx context.Context, cfgArgs []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "ceph", append(slices.Clone(cfgArgs), args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("ceph %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// opsLine is requests by operation, most first: "lookupsnap 812, getattr 640".
func opsLine(ops map[string]uint64) string {
	names := make([]string, 0, len(ops))
	for op := range ops {
		names = append(names, op)
	}
	slices.SortFunc(names, func(a, b string) int {
		if ops[a] != ops[b] {
			return int(ops[b]) - int(ops[a])
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(names))
	for i, op := range names {
		parts[i] = fmt.Sprintf("%s %d", op, ops[op])
	}
	return strings.Join(parts, ", ")
}
