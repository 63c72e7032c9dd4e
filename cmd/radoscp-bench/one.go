package main

import (
	"cmp"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
)

// runRecord is what one run of one contender measured, in the process
// that ran it.
type runRecord struct {
	Seconds     float64   `json:"seconds"`
	LatencyMs   []float64 `json:"latency_ms"`
	ClientBytes uint64    `json:"client_bytes"`
	// ClientMeasured is false when the bytes were not observed (rados cp
	// runs in another program).
	ClientMeasured bool    `json:"client_bytes_measured"`
	CPUSeconds     float64 `json:"cpu_seconds"`
	MaxRSSBytes    uint64  `json:"max_rss_bytes"`
	// ProcessSeconds is the wall time of the whole child process that
	// ran the contender (start, connect, the copy, shutdown), measured
	// by the parent; Seconds is the copy's alone.
	ProcessSeconds float64 `json:"process_seconds,omitempty"`
	Window         int     `json:"window"`
	// MDS is what the run cost the active MDS (CephFS scenarios).
	MDS *mdsCost `json:"mds,omitempty"`
	// FineClock is set when the child's coarse monotonic clock read as a
	// fine one: the clock shim of --delay-clock fine was loaded.
	FineClock bool `json:"fine_clock"`
}

// injectDelay is the client options that delay every reply from the
// daemons of types (ms_inject_delay_type: "osd", or "mds osd") by up to d.
func injectDelay(d time.Duration, types string) map[string]string {
	if d <= 0 {
		return nil
	}
	return map[string]string{
		"ms_inject_delay_type":        types,
		"ms_inject_delay_probability": "1",
		"ms_inject_delay_max":         strconv.FormatFloat(d.Seconds(), 'f', -1, 64),
	}
}

// runOne runs plan.one once. In-process contenders report this process's
// CPU time during the copy and its peak RSS (connection included);
// rados-cp reports the CPU time and the largest peak RSS of the rados
// processes it ran.
func runOne(ctx context.Context, cfg config.Config, f benchFlags, plan benchPlan) (runRecord, error) {
	if f.cephfs {
		return runFSOne(ctx, cfg, f, plan.one)
	}
	if plan.one.Mode == "rados-cp" {
		return radosCpLoop(ctx, cfg, f)
	}
	conn, err := connectWith(cfg, injectDelay(f.injectDelay, f.injectDelayType))
	if err != nil {
		return runRecord{}, err
	}
	defer conn.Close()
	pool, err := openPool(conn, f.pool, f.namespace)
	if err != nil {
		return runRecord{}, err
	}
	if plan.one.Mode == "client" {
		return clientCopy(ctx, pool, layout.Prefix(f.prefix), layout.Prefix(f.dstPrefix), f.objects, plan.objectSize,
			cmp.Or(cfg.Chunk, store.DefaultChunk), plan.one.Window)
	}
	l := layout.Layout{StripeUnit: plan.objectSize, StripeCount: 1, ObjectSize: plan.objectSize}
	size := uint64(f.objects) * plan.objectSize
	src := radoscp.Source{Objects: pool, Layout: l, Names: layout.Prefix(f.prefix), Size: size}
	obs := &benchObserver{}
	engine := radoscp.NewEngine(obs, nil)
	// What radoscp cp asks of the engine for a rados: copy, less
	// --offload-only (refused with the client mode, see checkModes).
	opts := radoscp.Options{Window: plan.one.Window, Chunk: cfg.Chunk, PinSource: cfg.PinSource}
	switch plan.one.Mode {
	case "auto":
		opts.Auto, opts.MaxWindow = true, cfg.MaxWindow
	case "all":
		// Every object's copy-from at once, with no window, as
		// libcephfs's parallel copy_file_range (ceph/ceph PR 70316)
		// issues them: the engine's bound of window.MaxInFlight is
		// lifted for it.
		opts.Window = f.objects
		engine.SetMaxInFlight(f.objects)
	}
	before := rusage(syscall.RUSAGE_SELF)
	res, err := engine.Copy(ctx, src, 0, truncate.NewRaw(pool, l, f.dstPrefix, 0), 0, size, opts)
	after := rusage(syscall.RUSAGE_SELF)
	if err != nil {
		return runRecord{}, err
	}
	return runRecord{
		Seconds: res.Elapsed.Seconds(), LatencyMs: obs.latencies(),
		ClientBytes: obs.clientBytes(), ClientMeasured: true,
		CPUSeconds: cpuSeconds(after) - cpuSeconds(before), MaxRSSBytes: uint64(after.Maxrss) << 10,
		Window: res.Window,
	}, nil
}

// radosCpLoop copies every object with its own `rados cp`, as a script
// would. Each copy's latency is its process's wall time, start-up and
// connection included: that is what such a loop pays per object.
func radosCpLoop(ctx context.Context, cfg config.Config, f benchFlags) (runRecord, error) {
	base := cliArgs(cfg)
	if f.namespace != "" {
		base = append(base, "-N", f.namespace)
	}
	for k, v := range injectDelay(f.injectDelay, f.injectDelayType) {
		base = append(base, "--"+k, v)
	}
	base = append(base, "-p", f.pool, "cp")
	src, dst := layout.Prefix(f.prefix), layout.Prefix(f.dstPrefix)
	rec := runRecord{Window: 1}
	before := rusage(syscall.RUSAGE_CHILDREN)
	start := time.Now()
	for i := range uint64(f.objects) {
		t := time.Now()
		args := append(slices.Clone(base), src.ObjectName(i), dst.ObjectName(i))
		if out, err := exec.CommandContext(ctx, "rados", args...).CombinedOutput(); err != nil {
			return rec, fmt.Errorf("rados %q: %w: %s", args, err, out)
		}
		rec.LatencyMs = append(rec.LatencyMs, msOf(time.Since(t)))
	}
	rec.Seconds = time.Since(start).Seconds()
	after := rusage(syscall.RUSAGE_CHILDREN)
	rec.CPUSeconds = cpuSeconds(after) - cpuSeconds(before)
	rec.MaxRSSBytes = uint64(after.Maxrss) << 10
	return rec, nil
}

func rusage(who int) syscall.Rusage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(who, &ru)
	return ru
}

func cpuSeconds(ru syscall.Rusage) float64 {
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// benchObserver records copy-from latencies and client bytes of one run.
type benchObserver struct {
	radoscp.NopObserver
	mu    sync.Mutex
	lat   []float64
	bytes uint64
}

func (o *benchObserver) CopyDone(l time.Duration, _ uint64, err error) {
	if err == nil {
		o.mu.Lock()
		o.lat = append(o.lat, msOf(l))
		o.mu.Unlock()
	}
}

func (o *benchObserver) ClientIO(r, w uint64) {
	o.mu.Lock()
	o.bytes += r + w
	o.mu.Unlock()
}

func (o *benchObserver) latencies() []float64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.lat)
}

func (o *benchObserver) clientBytes() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.bytes
}
