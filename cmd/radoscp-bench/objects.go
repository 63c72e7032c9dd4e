package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados"
)

// benchResult is one run of a scenario: what run --json prints and report
// reads.
type benchResult struct {
	Scenario     string      `json:"scenario,omitempty"`
	Title        string      `json:"title,omitempty"`
	Machine      machineInfo `json:"machine"`
	Objects      int         `json:"objects"`
	ObjectSize   uint64      `json:"object_size"`
	InjectDelayS float64     `json:"inject_osd_delay_seconds"`
	// DelayClock is how the contenders timed the injected delay
	// (--delay-clock: fine or coarse); empty without one, and in results
	// from before the option, which were all coarse.
	DelayClock string `json:"delay_clock,omitempty"`
	// DelayType is the daemons whose replies were delayed
	// (--inject-delay-type: "osd" or "mds osd"); empty without a delay,
	// and in results from before the field, which delayed the OSDs'.
	DelayType string `json:"inject_delay_type,omitempty"`
	Repeat    int    `json:"repeat"`
	// PinSource is set when radoscp's contenders pinned each source
	// object's version (--pin-source, radoscp cp's default). Results
	// from before the field existed were taken without.
	PinSource bool `json:"pin_source"`
	// SpeedUpOver is the contender every row's speed-up is over
	// (offload:1, rados-cp or clone:1); empty when the run had none of
	// them, and then there is no speed-up.
	SpeedUpOver string `json:"speedup_over,omitempty"`
	// The cephfs scenario copies Files files of FileSize bytes; Anchor
	// says what its speed-up is over.
	Files    int    `json:"files,omitempty"`
	FileSize uint64 `json:"file_size,omitempty"`
	Anchor   string `json:"anchor,omitempty"`
	// Tree is what a tree scenario's source held (see tree.go).
	Tree *treeInfo  `json:"tree,omitempty"`
	Rows []benchRow `json:"rows"`
}

// benchRow is one contender: the median of its runs.
type benchRow struct {
	Mode          string    `json:"mode"`
	Window        int       `json:"window"`          // 0 for auto and rados-cp
	Files         int       `json:"files,omitempty"` // cephfs: files at once
	WindowReached int       `json:"window_reached"`  // widest window, median over runs
	Seconds       float64   `json:"wall_seconds"`
	MiBps         float64   `json:"mib_per_second"`
	SpeedUp       float64   `json:"speedup"` // over benchResult.SpeedUpOver; 0 for none
	P50ms         float64   `json:"p50_copy_ms"`
	P99ms         float64   `json:"p99_copy_ms"`
	CPUSeconds    float64   `json:"client_cpu_seconds"`
	MaxRSSBytes   uint64    `json:"client_peak_rss_bytes"`
	ClientBytes   uint64    `json:"client_bytes"`
	ClientMeasure bool      `json:"client_bytes_measured"`
	RunsSeconds   []float64 `json:"runs_seconds"`
	// RunsProcessSeconds and RunsCPUSeconds are each run's whole process
	// time and client CPU, in repeat order like RunsSeconds: the runs
	// of one repeat follow each other, so two contenders compared repeat
	// by repeat share the cluster's state (see pairedRatios).
	RunsProcessSeconds []float64 `json:"runs_process_seconds,omitempty"`
	RunsCPUSeconds     []float64 `json:"runs_cpu_seconds,omitempty"`
	// Verified is set when the cephfs scenario compared a copy with its
	// source, byte for byte, and found them identical.
	Verified bool `json:"verified,omitempty"`
	// FilesPerS is the tree scenarios' regular files copied per second.
	FilesPerS float64 `json:"files_per_second,omitempty"`
	// MDSRequestsPerFile and MDSCPUMsPerFile are the tree scenarios'
	// medians of the MDS's client requests and CPU milliseconds per
	// regular file copied; -1 when not measured (the MDS failed over, or
	// runs on another machine).
	MDSRequestsPerFile float64 `json:"mds_requests_per_file,omitempty"`
	MDSCPUMsPerFile    float64 `json:"mds_cpu_ms_per_file,omitempty"`
	// ProcessSeconds is the median wall time of the contender's whole
	// process; FixedSeconds the median of each run's process time less
	// its copy time: what the run pays besides the copies (start,
	// connect, the first osdmap, shutdown). Object scenarios only.
	ProcessSeconds float64 `json:"process_seconds,omitempty"`
	FixedSeconds   float64 `json:"fixed_seconds,omitempty"`
	// CPUMsPerObject is the median client CPU per object copied, in
	// milliseconds (object scenarios).
	CPUMsPerObject float64 `json:"client_cpu_ms_per_object,omitempty"`
}

func runBench(ctx context.Context, cfg config.Config, f benchFlags, plan benchPlan) (benchResult, error) {
	if f.cephfs {
		return runFSBench(ctx, cfg, f, plan)
	}
	res := benchResult{Scenario: f.scenario, Machine: describeMachine(), Objects: f.objects,
		ObjectSize: plan.objectSize, Repeat: f.repeat, PinSource: cfg.PinSource}
	for _, sc := range scenarios {
		if sc.name == f.scenario {
			res.Title = sc.title
		}
	}
	// The bench's own connection writes and removes objects: it has no
	// injected delay.
	conn, err := connect(cfg)
	if err != nil {
		return res, err
	}
	defer conn.Close()
	pool, err := openPool(conn, f.pool, f.namespace)
	if err != nil {
		return res, err
	}
	if err := ensureSources(pool, f.prefix, f.objects, plan.objectSize); err != nil {
		return res, err
	}
	if !f.keep {
		defer removeObjects(pool, layout.Prefix(f.prefix), f.objects)
	}
	self, err := os.Executable()
	if err != nil {
		return res, fmt.Errorf("finding this program to run contenders: %w", err)
	}
	runs := make([][]runRecord, len(plan.contenders))
	// Repeats are the outer loop, so drift in the cluster spreads over
	// every contender instead of landing on one.
	for rep := range f.repeat {
		for i, c := range plan.contenders {
			dst := fmt.Sprintf("%s-dst-%s-%d", f.prefix, strings.ReplaceAll(c.String(), ":", "-"), rep)
			rec, err := runChild(ctx, self, cfg, f, plan, c, dst)
			removeObjects(pool, layout.Prefix(dst), f.objects)
			if err != nil {
				return res, fmt.Errorf("%s: %w", c, err)
			}
			runs[i] = append(runs[i], rec)
		}
	}
	size := uint64(f.objects) * plan.objectSize
	for i, c := range plan.contenders {
		row := summarize(c, runs[i], size)
		row.CPUMsPerObject = row.CPUSeconds * 1000 / float64(f.objects)
		res.Rows = append(res.Rows, row)
	}
	res.SpeedUpOver = setSpeedUp(res.Rows)
	return res, nil
}

// contenderOpTimeout is each contender's --op-timeout when none is given:
// an operation that waits longer fails the run instead of holding it for
// ever (a wedged OSD: all of thousands of copy-froms sent at once stopped
// one on the test cluster, see window.MaxInFlight).
const contenderOpTimeout = 2 * time.Minute

// runChild runs contender c once in a child process (run --one) and
// returns what it measured.
func runChild(ctx context.Context, self string, cfg config.Config, f benchFlags, plan benchPlan, c contender, dst string) (runRecord, error) {
	if c.Mode == "command" {
		return runCommand(ctx, self, cfg, f, plan, c, dst)
	}
	args := []string{"run", "--one", c.String(), "--dst-prefix", dst,
		"--config=" + cfg.ConfigFile,
		"--pool", f.pool, "--namespace", f.namespace, "--prefix", f.prefix,
		"--objects", strconv.Itoa(f.objects), "--object-size", strconv.FormatUint(plan.objectSize, 10),
		"--inject-osd-delay", f.injectDelay.String(), "--inject-delay-type", f.injectDelayType,
		"--chunk", strconv.FormatUint(cfg.Chunk, 10), "--max-window", strconv.Itoa(cfg.MaxWindow),
		"--connect-timeout", cfg.ConnectTimeout.String(), "--op-timeout", cmp.Or(cfg.OpTimeout, contenderOpTimeout).String(),
		"--pin-source=" + strconv.FormatBool(cfg.PinSource)}
	if f.cephfs {
		args = append(args, "--scenario", f.scenario, "--fs", f.fsName, "--fs-dir", f.fsDir)
		if f.tree == "" {
			args = append(args, "--file-size", f.fileSize)
		}
	}
	for _, kv := range [][2]string{{"--conf", cfg.Conf}, {"--id", cfg.ID}, {"--name", cfg.Name}, {"--keyring", cfg.Keyring}} {
		if kv[1] != "" {
			args = append(args, kv[0], kv[1])
		}
	}
	cmd := exec.CommandContext(ctx, self, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return runRecord{}, fmt.Errorf("%w: %s", err, strings.TrimSpace(errOut.String()))
	}
	process := time.Since(start)
	var rec runRecord
	if err := json.Unmarshal(out.Bytes(), &rec); err != nil {
		return rec, fmt.Errorf("reading its measurements %q: %w", out.String(), err)
	}
	rec.ProcessSeconds = process.Seconds()
	if f.injectDelay > 0 && f.delayClock == fineDelayClock && !rec.FineClock {
		return rec, fmt.Errorf("%s read Ceph's coarse clock although --delay-clock fine: the clock shim in LD_PRELOAD=%q did not load into it", c, os.Getenv("LD_PRELOAD"))
	}
	return rec, nil
}

// ensureSources writes the source objects that are missing or of the wrong
// size, with random data.
func ensureSources(p *rados.Pool, prefix string, n int, size uint64) error {
	names := layout.Prefix(prefix)
	buf := make([]byte, size)
	for i := range uint64(n) {
		oid := names.ObjectName(i)
		if st, err := p.Stat(oid); err == nil && st.Size == size {
			continue
		}
		_, _ = rand.Read(buf)
		if err := p.WriteFull(oid, buf); err != nil {
			return err
		}
	}
	return nil
}

func removeObjects(p *rados.Pool, names layout.Namer, n int) {
	for i := range uint64(n) {
		_ = p.Remove(names.ObjectName(i))
	}
}
