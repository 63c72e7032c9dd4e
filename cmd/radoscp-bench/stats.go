package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// summarize turns the runs of one contender into its row: medians of
// wall time, CPU, peak RSS and window reached; percentiles over every
// copy of every run.
func summarize(c contender, runs []runRecord, size uint64) benchRow {
	row := benchRow{Mode: c.Mode, Window: c.Window, Files: c.Files, ClientMeasure: true}
	var lat, cpu, rss, win, process, fixed []float64
	for _, r := range runs {
		if r.ProcessSeconds > 0 {
			process = append(process, r.ProcessSeconds)
			fixed = append(fixed, r.ProcessSeconds-r.Seconds)
		}
		row.RunsSeconds = append(row.RunsSeconds, r.Seconds)
		lat = append(lat, r.LatencyMs...)
		cpu = append(cpu, r.CPUSeconds)
		rss = append(rss, float64(r.MaxRSSBytes))
		win = append(win, float64(r.Window))
		row.ClientBytes = max(row.ClientBytes, r.ClientBytes)
		row.ClientMeasure = row.ClientMeasure && r.ClientMeasured
	}
	row.Seconds = median(row.RunsSeconds)
	if row.Seconds > 0 {
		row.MiBps = float64(size) / (1 << 20) / row.Seconds
	}
	row.P50ms, row.P99ms = percentile(lat, 0.50), percentile(lat, 0.99)
	row.CPUSeconds = median(cpu)
	row.MaxRSSBytes = uint64(median(rss))
	row.WindowReached = int(median(win) + 0.5)
	if len(process) == len(runs) {
		row.ProcessSeconds, row.FixedSeconds = median(process), median(fixed)
		row.RunsProcessSeconds = process
	}
	row.RunsCPUSeconds = cpu
	return row
}

// setSpeedUp sets every row's speed-up over the run's anchor and returns
// the anchor as a contender (see contender.String), or "" when the run has
// none: then every speed-up is 0, printed "-". The anchor is window 1 of
// radoscp's copy-from (one at a time, as the kernel and rados cp copy);
// without it, the rados cp loop; in CephFS, the clone anchor (one file at
// a time), or when that was not run, the clone anchor with the fewest
// files at once.
func setSpeedUp(rows []benchRow) string {
	base, ok := speedUpBase(rows)
	for i := range rows {
		rows[i].SpeedUp = 0
		if ok && rows[i].Seconds > 0 {
			rows[i].SpeedUp = base.Seconds / rows[i].Seconds
		}
	}
	if !ok {
		return ""
	}
	return contender{Mode: base.Mode, Window: base.Window, Files: base.Files}.String()
}

func speedUpBase(rows []benchRow) (benchRow, bool) {
	for _, isBase := range []func(benchRow) bool{
		func(r benchRow) bool { return r.Mode == "offload" && r.Window == 1 },
		func(r benchRow) bool { return r.Mode == "clone" && r.Files == 1 },
		func(r benchRow) bool { return r.Mode == "rados-cp" },
	} {
		for _, r := range rows {
			if isBase(r) && r.Seconds > 0 {
				return r, true
			}
		}
	}
	var clone benchRow
	for _, r := range rows {
		if r.Mode == "clone" && r.Seconds > 0 && (clone.Files == 0 || r.Files < clone.Files) {
			clone = r
		}
	}
	return clone, clone.Files > 0
}

// speedUpHeader names the speed-up column after what it is over.
func speedUpHeader(over string) string {
	switch over {
	case "offload:1":
		return "speed-up vs window 1"
	case "rados-cp":
		return "speed-up vs rados cp loop"
	case "clone:1":
		return "speed-up vs clone anchor"
	}
	if files, ok := strings.CutPrefix(over, "clone:"); ok {
		return "speed-up vs clone anchor at " + files + " files at once"
	}
	return "speed-up"
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// percentile is the nearest-rank percentile; 0 for none (client copies
// report no per-copy latency).
func percentile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// label names a row's contender for people.
func (r benchRow) label() string {
	switch r.Mode {
	case "offload":
		return "radoscp window " + strconv.Itoa(r.Window)
	case "auto":
		return fmt.Sprintf("radoscp auto (reached %d)", r.WindowReached)
	case "all":
		return fmt.Sprintf("radoscp all at once (window %d)", r.WindowReached)
	case "rados-cp":
		return "rados cp loop"
	case "command":
		if r.Window == 0 {
			return fmt.Sprintf("radoscp cp --window auto, the whole command (reached %d)", r.WindowReached)
		}
		return fmt.Sprintf("radoscp cp --window %d, the whole command", r.Window)
	case "client":
		return "client copy window " + strconv.Itoa(r.Window)
	case "cp-fuse":
		return "cp -a through ceph-fuse"
	case "existing":
		return "radoscp cp -r SRC/ into an existing directory (per-file staging)"
	case "snapshot":
		return "from a snapshot: radoscp cp -r SRC/.snap/S/ --files 4 --window 16"
	case "snapshot-clone":
		return "from a snapshot: libcephfs 8 MiB chunks, 4 files at once (a subvolume clone)"
	case "snapshot-cp-fuse":
		return "from a snapshot: cp -a through ceph-fuse"
	case "sharded":
		return fmt.Sprintf("radoscp cp -r --shard K/%d, %d workers at once, then finish/%d", shardedWorkers, shardedWorkers, shardedWorkers)
	case "sharded-dir":
		return fmt.Sprintf("radoscp cp -r --shard K/%d --shard-by dir, %d workers at once, then finish/%d", shardedWorkers, shardedWorkers, shardedWorkers)
	case "clone":
		if r.Files == 1 {
			return "clone anchor: libcephfs 8 MiB chunks, 1 file at a time"
		}
		return fmt.Sprintf("libcephfs 8 MiB chunks, %d files at once", r.Files)
	case "fscopy":
		if r.Window == 0 {
			return fmt.Sprintf("radoscp cp -r --files %d --window auto (reached %d)", r.Files, r.WindowReached)
		}
		return fmt.Sprintf("radoscp cp -r --files %d --window %d", r.Files, r.Window)
	}
	return r.Mode
}

// columns says which optional columns a table has: files/s and the MDS's
// cost (the tree scenarios), the whole process and CPU per object (the
// object scenarios).
type columns struct{ files, objects bool }

func columnsOf(rows []benchRow) columns {
	return columns{
		files:   slices.ContainsFunc(rows, func(r benchRow) bool { return r.FilesPerS > 0 }),
		objects: slices.ContainsFunc(rows, func(r benchRow) bool { return r.CPUMsPerObject > 0 }),
	}
}

// benchHeader is the columns as printed, for a run whose speed-up is over
// the contender over (see setSpeedUp).
func benchHeader(over string, cols columns) []string {
	h := []string{"contender", "wall s", "MiB/s", speedUpHeader(over), "p50 ms", "p99 ms", "CPU s", "peak RSS MiB", "client MiB"}
	if cols.files {
		h = slices.Insert(h, 2, "files/s")
		h = append(h, "MDS req/file", "MDS CPU ms/file")
	}
	if cols.objects {
		h = append(h, "CPU ms/object", "process s", "fixed s")
	}
	return h
}

// cells are a row's columns as printed, in benchHeader's order.
func (r benchRow) cells(cols columns) []string {
	client := "-"
	if r.ClientMeasure {
		client = strconv.FormatFloat(float64(r.ClientBytes)/(1<<20), 'f', 1, 64)
	}
	speedUp := "-"
	if r.SpeedUp > 0 {
		speedUp = fmt.Sprintf("%.2fx", r.SpeedUp)
	}
	c := []string{r.label(), fmt.Sprintf("%.3f", r.Seconds), fmt.Sprintf("%.1f", r.MiBps), speedUp,
		ms(r.P50ms), ms(r.P99ms), fmt.Sprintf("%.2f", r.CPUSeconds), fmt.Sprintf("%.0f", float64(r.MaxRSSBytes)/(1<<20)), client}
	if cols.files {
		c = slices.Insert(c, 2, fmt.Sprintf("%.0f", r.FilesPerS))
		c = append(c, perFile(r.MDSRequestsPerFile), perFile(r.MDSCPUMsPerFile))
	}
	if cols.objects {
		c = append(c, fmt.Sprintf("%.3f", r.CPUMsPerObject), seconds(r.ProcessSeconds), seconds(r.FixedSeconds))
	}
	return c
}

// perFile prints a per-file figure, "-" when not measured (negative) or
// absent (zero: results from before the MDS was counted).
func perFile(v float64) string {
	if v <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

func printBench(w io.Writer, rows []benchRow, over string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	cols := columnsOf(rows)
	for _, h := range benchHeader(over, cols) {
		fmt.Fprint(tw, h, "\t")
	}
	fmt.Fprintln(tw)
	for _, r := range rows {
		for _, c := range r.cells(cols) {
			fmt.Fprint(tw, c, "\t")
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// seconds prints a time in seconds, "-" when not measured (results from
// before it was).
func seconds(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

func ms(v float64) string {
	if v == 0 {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
