package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/truncate"
)

type benchFlags struct {
	pool, namespace, prefix string
	objects                 int
	windows                 string
	modes                   string
	repeat                  int
	keep                    bool
	plot                    string
	injectDelay             time.Duration
}

func newBenchCommand() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "bench --pool POOL [flags]",
		Short: "Measure server-side copy against one-at-a-time copy-from and client-side copy",
		Long: `Creates (or reuses) --objects source objects of --object-size in --pool,
copies them with each window of --windows in each mode, and prints a table.
Modes: offload (radoscp's copy-from; window 1 is the one-at-a-time copy the
kernel and rados cp do) and client (read and write through this client at the
same concurrency, as clones and cp do). Each figure is the median of --repeat
runs. Destination objects are removed after each run; the source objects too,
unless --keep.`,
		Args: cobra.NoArgs,
	}
	loader := config.Bind(cmd.Flags())
	fl := cmd.Flags()
	fl.StringVar(&f.pool, "pool", "", "pool to benchmark in (required)")
	fl.StringVar(&f.namespace, "namespace", "", "namespace in the pool")
	fl.StringVar(&f.prefix, "prefix", "bench-src", "name prefix of the source objects")
	fl.IntVar(&f.objects, "objects", 32, "number of source objects")
	fl.StringVar(&f.windows, "windows", "1,2,4,8,16,32,64", "comma-separated windows to sweep")
	fl.StringVar(&f.modes, "modes", "offload,client", "comma-separated modes: offload, client")
	fl.IntVar(&f.repeat, "repeat", 3, "runs per figure (the median is reported)")
	fl.BoolVar(&f.keep, "keep", false, "keep the source objects for another run")
	fl.StringVar(&f.plot, "plot", "", "write a plot of MiB/s against window to this .svg or .png file")
	fl.Bool("no-progress", false, "accepted for symmetry with cp; bench prints no progress")
	fl.DurationVar(&f.injectDelay, "inject-osd-delay", 0, "delay every OSD reply to this client by up to this long (ms_inject_delay_max), to model a latency-bound cluster")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		started = true
		cfg, _, err := loader.Load()
		if err != nil {
			return usageError{err}
		}
		plan, err := parseBench(f, cfg.ObjectSize)
		if err != nil {
			return usageError{err}
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		rows, err := runBench(ctx, cfg, f, plan)
		if err != nil {
			return err
		}
		if cfg.JSON {
			if err := json.NewEncoder(cmd.OutOrStdout()).Encode(rows); err != nil {
				return err
			}
		} else {
			printBench(cmd.OutOrStdout(), rows)
		}
		if f.plot != "" {
			if err := plotBench(f.plot, rows); err != nil {
				return err
			}
		}
		return nil
	}
	return cmd
}

// benchPlan is the validated sweep.
type benchPlan struct {
	objectSize uint64
	windows    []int
	modes      []string
}

func parseBench(f benchFlags, objectSize uint64) (benchPlan, error) {
	p := benchPlan{objectSize: objectSize}
	if f.pool == "" {
		return p, errors.New("bench needs --pool")
	}
	if f.objects < 1 {
		return p, fmt.Errorf("--objects %d: expected at least 1", f.objects)
	}
	if f.repeat < 1 {
		return p, fmt.Errorf("--repeat %d: expected at least 1", f.repeat)
	}
	if err := (layout.Layout{StripeUnit: p.objectSize, StripeCount: 1, ObjectSize: p.objectSize}).Validate(); err != nil {
		return p, fmt.Errorf("--object-size: %w", err)
	}
	for _, w := range strings.Split(f.windows, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil || n < 1 {
			return p, fmt.Errorf("--windows %q: expected comma-separated whole numbers >= 1", f.windows)
		}
		p.windows = append(p.windows, n)
	}
	for _, m := range strings.Split(f.modes, ",") {
		m = strings.TrimSpace(m)
		if m != "offload" && m != "client" {
			return p, fmt.Errorf("--modes %q: unknown mode %q, expected offload or client", f.modes, m)
		}
		p.modes = append(p.modes, m)
	}
	if f.plot != "" && !strings.HasSuffix(f.plot, ".svg") && !strings.HasSuffix(f.plot, ".png") {
		return p, fmt.Errorf("--plot %q: expected a .svg or .png file name", f.plot)
	}
	return p, nil
}

// benchRow is one line of the results: the median of its runs.
type benchRow struct {
	Mode         string    `json:"mode"`
	Objects      int       `json:"objects"`
	ObjectSize   uint64    `json:"object_size"`
	Window       int       `json:"window"`
	Seconds      float64   `json:"wall_seconds"`
	MiBps        float64   `json:"mib_per_second"`
	SpeedUp      float64   `json:"speedup_vs_window_1"`
	P50ms        float64   `json:"p50_copy_ms"`
	P99ms        float64   `json:"p99_copy_ms"`
	ClientBytes  uint64    `json:"client_bytes"`
	RunsSeconds  []float64 `json:"runs_seconds"`
	InjectDelayS float64   `json:"inject_osd_delay_seconds"`
}

func runBench(ctx context.Context, cfg config.Config, f benchFlags, plan benchPlan) ([]benchRow, error) {
	opts := map[string]string{}
	if f.injectDelay > 0 {
		opts["ms_inject_delay_type"] = "osd"
		opts["ms_inject_delay_probability"] = "1"
		opts["ms_inject_delay_max"] = strconv.FormatFloat(f.injectDelay.Seconds(), 'f', -1, 64)
	}
	conn, err := connectWith(cfg, opts)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	pool, err := openPool(conn, Address{Raw: "--pool " + f.pool, Pool: f.pool, Namespace: f.namespace})
	if err != nil {
		return nil, err
	}
	l := layout.Layout{StripeUnit: plan.objectSize, StripeCount: 1, ObjectSize: plan.objectSize}
	if err := ensureSources(pool, f.prefix, f.objects, plan.objectSize); err != nil {
		return nil, err
	}
	if !f.keep {
		defer removeObjects(pool, layout.Prefix(f.prefix), f.objects)
	}
	size := uint64(f.objects) * plan.objectSize
	src := radoscp.Source{Objects: pool, Layout: l, Names: layout.Prefix(f.prefix), Size: size}

	var rows []benchRow
	for _, mode := range plan.modes {
		for _, w := range plan.windows {
			row := benchRow{Mode: mode, Objects: f.objects, ObjectSize: plan.objectSize, Window: w, InjectDelayS: f.injectDelay.Seconds()}
			var lat []time.Duration
			for rep := range f.repeat {
				obs := &benchObserver{}
				engine := radoscp.NewEngine(obs, nil)
				dstPrefix := fmt.Sprintf("%s-dst-%s-%d-%d", f.prefix, mode, w, rep)
				dst := truncate.NewRaw(pool, l, dstPrefix, 0)
				res, err := engine.Copy(ctx, src, 0, dst, 0, size, radoscp.Options{
					Window: w, Chunk: cfg.Chunk, ClientOnly: mode == "client",
				})
				removeObjects(pool, layout.Prefix(dstPrefix), f.objects)
				if err != nil {
					return nil, fmt.Errorf("bench %s window %d: %w", mode, w, err)
				}
				row.RunsSeconds = append(row.RunsSeconds, res.Elapsed.Seconds())
				row.ClientBytes = obs.clientBytes()
				lat = append(lat, obs.latencies()...)
			}
			row.Seconds = median(row.RunsSeconds)
			row.MiBps = float64(size) / (1 << 20) / row.Seconds
			row.P50ms, row.P99ms = percentileMs(lat, 0.50), percentileMs(lat, 0.99)
			rows = append(rows, row)
		}
	}
	for i := range rows {
		for _, base := range rows {
			if base.Mode == "offload" && base.Window == 1 {
				rows[i].SpeedUp = base.Seconds / rows[i].Seconds
			}
		}
	}
	return rows, nil
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

// benchObserver records copy-from latencies and client bytes of one run.
type benchObserver struct {
	radoscp.NopObserver
	mu    sync.Mutex
	lat   []time.Duration
	bytes uint64
}

func (o *benchObserver) CopyDone(l time.Duration, _ uint64, err error) {
	if err == nil {
		o.mu.Lock()
		o.lat = append(o.lat, l)
		o.mu.Unlock()
	}
}

func (o *benchObserver) ClientIO(r, w uint64) {
	o.mu.Lock()
	o.bytes += r + w
	o.mu.Unlock()
}

func (o *benchObserver) latencies() []time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.lat)
}

func (o *benchObserver) clientBytes() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.bytes
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// percentileMs is the nearest-rank percentile in milliseconds; 0 for none
// (client copies have no copy-from latency).
func percentileMs(d []time.Duration, q float64) float64 {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	i = min(max(i, 0), len(s)-1)
	return float64(s[i]) / float64(time.Millisecond)
}

func printBench(w io.Writer, rows []benchRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mode\tobjects\tobject size\twindow\twall s\tMiB/s\tspeed-up\tp50 ms\tp99 ms\tclient bytes\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%.3f\t%.1f\t%.2fx\t%s\t%s\t%d\t\n", r.Mode, r.Objects, mib(r.ObjectSize), r.Window,
			r.Seconds, r.MiBps, r.SpeedUp, ms(r.P50ms), ms(r.P99ms), r.ClientBytes)
	}
	tw.Flush()
}

func ms(v float64) string {
	if v == 0 {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
