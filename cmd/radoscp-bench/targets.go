package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// checkTargets says, for each target of the benchmark issue, what was
// measured and whether it was met. A target whose scenario was not run
// says so.
func checkTargets(results []benchResult, engine string) []string {
	by := map[string]benchResult{}
	for _, r := range results {
		by[r.Scenario] = r
	}
	var out []string
	for _, sc := range []string{"latency10", "latency20"} {
		r, ok := by[sc]
		if !ok {
			out = append(out, fmt.Sprintf("Latency-bound (%s), window 16 at least 8x window 1: not run.", sc))
			continue
		}
		w16, ok := find(r.Rows, "offload", 16)
		if _, has1 := find(r.Rows, "offload", 1); !has1 {
			out = append(out, fmt.Sprintf("Latency-bound (%s), window 16 at least 8x window 1: window 1 not in the sweep.", sc))
			continue
		}
		if !ok {
			out = append(out, fmt.Sprintf("Latency-bound (%s), window 16 at least 8x window 1: window 16 not in the sweep.", sc))
			continue
		}
		out = append(out, fmt.Sprintf("Latency-bound (%s), window 16 at least 8x window 1: %.2fx, **%s**.", sc, w16.SpeedUp, verdict(w16.SpeedUp >= 8)))
	}
	if r, ok := by["throughput"]; ok {
		best := bestRow(r.Rows, func(benchRow) bool { return true })
		client := bestRow(r.Rows, func(x benchRow) bool { return x.Mode == "client" })
		for _, c := range []struct {
			name, mode string
			window     int
		}{{"window 16 (the default)", "offload", 16}, {"auto", "auto", 0}} {
			row, ok := find(r.Rows, c.mode, c.window)
			if !ok {
				continue
			}
			out = append(out, fmt.Sprintf("Throughput-bound, radoscp %s within 10%% of the best contender (%s, %.1f MiB/s): %.1f MiB/s, %.0f%%, **%s**.",
				c.name, best.label(), best.MiBps, row.MiBps, 100*row.MiBps/best.MiBps, verdict(row.MiBps >= 0.9*best.MiBps)))
			if client.MiBps > 0 {
				out = append(out, fmt.Sprintf("Throughput-bound, radoscp %s at least 2x the best client copy (%s, %.1f MiB/s): %.2fx, **%s**.",
					c.name, client.label(), client.MiBps, row.MiBps/client.MiBps, verdict(row.MiBps >= 2*client.MiBps)))
			}
		}
	} else {
		out = append(out, "Throughput-bound targets: not run.")
	}
	for _, r := range results {
		auto, ok := find(r.Rows, "auto", 0)
		best := bestRow(r.Rows, func(x benchRow) bool { return x.Mode == "offload" })
		if !ok || best.MiBps == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("`--window auto` at least 90%% of the best fixed window (%s: %s, %.1f MiB/s): %.1f MiB/s, %.0f%%, **%s**.",
			r.Scenario, best.label(), best.MiBps, auto.MiBps, 100*auto.MiBps/best.MiBps, verdict(auto.MiBps >= 0.9*best.MiBps)))
	}
	out = append(out, allAtOnceTargets(results)...)
	for _, sc := range treeScenarios {
		if r, ok := by[sc.name]; ok {
			for _, v := range treeVerdicts(r) {
				out = append(out, fmt.Sprintf("Small files (%s): %s", sc.name, v))
			}
		}
	}
	out = append(out, engineTargets(engine)...)
	return out
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "missed"
}

func find(rows []benchRow, mode string, window int) (benchRow, bool) {
	for _, r := range rows {
		if r.Mode == mode && r.Window == window {
			return r, true
		}
	}
	return benchRow{}, false
}

func bestRow(rows []benchRow, keep func(benchRow) bool) benchRow {
	var best benchRow
	for _, r := range rows {
		if keep(r) && r.MiBps > best.MiBps {
			best = r
		}
	}
	return best
}

// benchMetric finds "VALUE UNIT" on the go test -bench line of name.
func benchMetric(out, name, unit string) (float64, bool) {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `(-\d+)?\s.*?\s([0-9.e+]+) ` + regexp.QuoteMeta(unit) + `\b`)
	m := re.FindStringSubmatch(out)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[2], 64)
	return v, err == nil
}

func engineTargets(out string) []string {
	if strings.TrimSpace(out) == "" {
		return []string{"Engine overhead: not run."}
	}
	var t []string
	ns, ok1 := benchMetric(out, "BenchmarkEngineCopy/objects=1000", "ns/object")
	ns2, ok2 := benchMetric(out, "BenchmarkEngineCopy/objects=100000", "ns/object")
	if ok1 && ok2 {
		t = append(t, fmt.Sprintf("Engine overhead under 5 us per object: %.0f ns (1,000 objects), %.0f ns (100,000), **%s**.", ns, ns2, verdict(max(ns, ns2) < 5000)))
	}
	a1, ok1 := benchMetric(out, "BenchmarkEngineCopy/objects=1000", "allocs/object")
	a2, ok2 := benchMetric(out, "BenchmarkEngineCopy/objects=100000", "allocs/object")
	if ok1 && ok2 {
		t = append(t, fmt.Sprintf("Constant allocations per object: %.2f (1,000 objects), %.2f (100,000), **%s**.", a1, a2, verdict(a2 <= a1+0.5)))
	}
	if rss, ok := benchMetric(out, "BenchmarkEngineMillionObjects", "peak-RSS-MiB"); ok {
		t = append(t, fmt.Sprintf("1,000,000 objects under 64 MiB RSS: %.1f MiB, **%s**.", rss, verdict(rss < 64)))
	}
	return t
}

// allAtOnceTargets are the latency issue's goals: pinned, 256 x 256 KiB
// at 20 ms, window 16 at least 12x window 1 and auto 15x; at 4,096
// objects and 1 ms, auto within 10% of all at once (or faster) with less
// client CPU. Speed-ups here are of the copy; the process's fixed cost is
// in the table.
func allAtOnceTargets(results []benchResult) []string {
	var out []string
	for _, r := range results {
		if r.Scenario != "latency20" {
			continue
		}
		for _, c := range []struct {
			name, mode string
			window     int
			goal       float64
		}{{"window 16", "offload", 16, 12}, {"auto", "auto", 0, 15}} {
			row, ok := find(r.Rows, c.mode, c.window)
			if !ok || row.SpeedUp == 0 {
				continue
			}
			// The goal is the whole process's (start, connect, copy,
			// shutdown); results from before the process was timed have
			// the copy's alone.
			w1, _ := find(r.Rows, "offload", 1)
			speed, what := row.SpeedUp, "the copy alone"
			speeds := pairedRatios(w1.RunsSeconds, row.RunsSeconds)
			if row.ProcessSeconds > 0 && w1.ProcessSeconds > 0 {
				speed, what = w1.ProcessSeconds/row.ProcessSeconds, fmt.Sprintf("whole process; the copy alone %.2fx", row.SpeedUp)
				speeds = pairedRatios(w1.RunsProcessSeconds, row.RunsProcessSeconds)
			}
			bound := ""
			if c.window > 0 && row.ProcessSeconds > 0 {
				bound = ceilingNote(r, c.window, "offload", speed)
			}
			out = append(out, fmt.Sprintf("Latency-bound (latency20, pinned=%t), %s at least %.0fx window 1: %.2fx (%s), **%s**.%s%s",
				r.PinSource, c.name, c.goal, speed, what, verdict(speed >= c.goal),
				byRepeat(speeds, 1, "%.2fx", func(i int) bool { return speeds[i] >= c.goal }), bound))
		}
		out = append(out, commandTargets(r)...)
	}
	for _, r := range results {
		auto, okAuto := find(r.Rows, "auto", 0)
		all, okAll := find(r.Rows, "all", 0)
		if !okAuto || !okAll || all.Seconds == 0 {
			continue
		}
		times, cpus := pairedRatios(auto.RunsSeconds, all.RunsSeconds), pairedRatios(auto.RunsCPUSeconds, all.RunsCPUSeconds)
		if len(cpus) != len(times) {
			times = nil
		}
		out = append(out, fmt.Sprintf("%s: auto within 10%% of all at once (%.3f s, %.3f ms CPU per object): %.3f s (%.0f%%), %.3f ms CPU per object, **%s**.%s",
			r.Scenario, all.Seconds, all.CPUMsPerObject, auto.Seconds, 100*auto.Seconds/all.Seconds, auto.CPUMsPerObject,
			verdict(auto.Seconds <= 1.1*all.Seconds && auto.CPUMsPerObject < all.CPUMsPerObject),
			byRepeat(times, 100, "%.0f%%", func(i int) bool { return times[i] <= 1.1 && cpus[i] < 1 })))
	}
	return out
}

// commandTargets holds radoscp cp itself (the command contender) to the
// goals the engine's process is held to, whole process against its own
// window 1: what an operator running the command sees.
func commandTargets(r benchResult) []string {
	w1, ok := find(r.Rows, "command", 1)
	if !ok || w1.ProcessSeconds == 0 {
		return nil
	}
	var out []string
	for _, c := range []struct {
		name   string
		window int
		goal   float64
	}{{"window 16", 16, 12}, {"auto", 0, 15}} {
		row, ok := find(r.Rows, "command", c.window)
		if !ok || row.ProcessSeconds == 0 {
			continue
		}
		speed := w1.ProcessSeconds / row.ProcessSeconds
		speeds := pairedRatios(w1.RunsProcessSeconds, row.RunsProcessSeconds)
		bound := ""
		if c.window > 0 {
			bound = ceilingNote(r, c.window, "command", speed)
		}
		out = append(out, fmt.Sprintf("The command itself (latency20, radoscp cp, pinned=%t, whole process: its prechecks and copy lock included), %s at least %.0fx its window 1: %.2fx (%.3f s against %.3f s), **%s**.%s%s",
			r.PinSource, c.name, c.goal, speed, row.ProcessSeconds, w1.ProcessSeconds, verdict(speed >= c.goal),
			byRepeat(speeds, 1, "%.2fx", func(i int) bool { return speeds[i] >= c.goal }), bound))
	}
	return out
}

// pairedRatios is num[i]/den[i] for every repeat i. The runs of one
// repeat follow each other, so a ratio taken within a repeat cancels the
// cluster's drift between repeats, which medians taken apart keep. nil
// unless both have a positive run for every repeat.
func pairedRatios(num, den []float64) []float64 {
	if len(num) == 0 || len(num) != len(den) {
		return nil
	}
	r := make([]float64, len(num))
	for i := range num {
		if num[i] <= 0 || den[i] <= 0 {
			return nil
		}
		r[i] = num[i] / den[i]
	}
	return r
}

// byRepeat describes ratios repeat by repeat, each times scale and shown
// with format: their median and range, and in how many repeats the target
// was met. "" for fewer than two repeats.
func byRepeat(ratios []float64, scale float64, format string, met func(i int) bool) string {
	if len(ratios) < 2 {
		return ""
	}
	k := 0
	for i := range ratios {
		if met(i) {
			k++
		}
	}
	return fmt.Sprintf(" Repeat by repeat: median "+format+", "+format+" to "+format+"; met in %d of %d.",
		scale*median(ratios), scale*slices.Min(ratios), scale*slices.Max(ratios), k, len(ratios))
}
