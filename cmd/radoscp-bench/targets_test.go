package main

import (
	"strings"
	"testing"
)

func TestCheckTargets(t *testing.T) {
	rows := func(w1, w16, auto, client float64) []benchRow {
		r := []benchRow{{Mode: "offload", Window: 1, MiBps: w1}, {Mode: "offload", Window: 16, MiBps: w16},
			{Mode: "auto", MiBps: auto}, {Mode: "client", Window: 16, MiBps: client}}
		for i := range r {
			r[i].Seconds = 1 / r[i].MiBps
		}
		setSpeedUp(r)
		return r
	}
	engine := `BenchmarkEngineCopy/objects=1000-2     3  886081 ns/op  6.512 allocs/object  955.2 ns/object
BenchmarkEngineCopy/objects=100000-2   3  83814500 ns/op  6.995 allocs/object  838.8 ns/object
BenchmarkEngineMillionObjects-2        3  822234133 ns/op  26.16 peak-RSS-MiB
`
	got := strings.Join(checkTargets([]benchResult{
		{Scenario: "latency10", Rows: rows(10, 90, 95, 50)},
		{Scenario: "latency20", Rows: rows(10, 70, 60, 50)},
		{Scenario: "throughput", Rows: rows(100, 500, 460, 240)},
	}, engine), "\n")
	for _, want := range []string{
		"(latency10), window 16 at least 8x window 1: 9.00x, **met**",
		"(latency20), window 16 at least 8x window 1: 7.00x, **missed**",
		"window 16 (the default) within 10% of the best contender (radoscp window 16, 500.0 MiB/s): 500.0 MiB/s, 100%, **met**",
		"window 16 (the default) at least 2x the best client copy (client copy window 16, 240.0 MiB/s): 2.08x, **met**",
		"auto at least 2x the best client copy (client copy window 16, 240.0 MiB/s): 1.92x, **missed**",
		"(latency20: radoscp window 16, 70.0 MiB/s): 60.0 MiB/s, 86%, **missed**",
		"(throughput: radoscp window 16, 500.0 MiB/s): 460.0 MiB/s, 92%, **met**",
		"955 ns (1,000 objects), 839 ns (100,000), **met**",
		"6.51 (1,000 objects), 7.00 (100,000), **met**",
		"1,000,000 objects under 64 MiB RSS: 26.2 MiB, **met**",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("targets lack %q:\n%s", want, got)
		}
	}
}

// The latency issue's goals: speed-ups at 20 ms, and auto against all at
// once (time within 10% and less CPU per object).
func TestAllAtOnceTargets(t *testing.T) {
	rows := func(w1, w16, auto, all, autoCPU, allCPU float64) []benchRow {
		r := []benchRow{{Mode: "offload", Window: 1, Seconds: w1}, {Mode: "offload", Window: 16, Seconds: w16},
			{Mode: "auto", Seconds: auto, CPUMsPerObject: autoCPU}, {Mode: "all", Seconds: all, CPUMsPerObject: allCPU}}
		setSpeedUp(r)
		return r
	}
	// Timed whole processes: the goal is theirs (each process here 0.1 s
	// more than its copy).
	whole := rows(4, 0.32, 0.25, 0.3, 0.9, 1.2)
	for i := range whole {
		whole[i].ProcessSeconds = whole[i].Seconds + 0.1
	}
	got := strings.Join(allAtOnceTargets([]benchResult{
		{Scenario: "latency20", PinSource: true, Rows: rows(4, 0.32, 0.25, 0.3, 0.9, 1.2)},
		{Scenario: "latency20", PinSource: false, Rows: whole},
		{Scenario: "latency1-4096", Rows: rows(10, 1, 1.05, 1, 0.5, 0.6)},
		{Scenario: "latency1", Rows: rows(1, 0.2, 0.12, 0.1, 0.5, 0.4)},
	}), "\n")
	for _, want := range []string{
		"(latency20, pinned=true), window 16 at least 12x window 1: 12.50x (the copy alone), **met**",
		"(latency20, pinned=true), auto at least 15x window 1: 16.00x (the copy alone), **met**",
		"(latency20, pinned=false), window 16 at least 12x window 1: 9.76x (whole process; the copy alone 12.50x), **missed**",
		"(latency20, pinned=false), auto at least 15x window 1: 11.71x (whole process; the copy alone 16.00x), **missed**",
		"latency1-4096: auto within 10% of all at once (1.000 s, 0.600 ms CPU per object): 1.050 s (105%), 0.500 ms CPU per object, **met**",
		"latency1: auto within 10% of all at once (0.100 s, 0.400 ms CPU per object): 0.120 s (120%), 0.500 ms CPU per object, **missed**",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("targets lack %q:\n%s", want, got)
		}
	}
}

// Each target of the latency issue is also judged repeat by repeat, from
// the runs of one repeat (which follow each other): a cluster that drifts
// between repeats moves both runs of a pair.
func TestTargetsRepeatByRepeat(t *testing.T) {
	row := func(mode string, window int, process, cpu []float64) benchRow {
		return benchRow{Mode: mode, Window: window, Seconds: median(process) - 0.03, ProcessSeconds: median(process),
			RunsSeconds: process, RunsProcessSeconds: process, RunsCPUSeconds: cpu, CPUMsPerObject: median(cpu)}
	}
	rows := []benchRow{
		row("offload", 1, []float64{3.0, 3.3, 3.6}, []float64{1, 1, 1}),
		row("offload", 16, []float64{0.25, 0.3, 0.29}, []float64{1, 1, 1}),
		row("auto", 0, []float64{1.0, 1.3, 0.9}, []float64{0.5, 0.7, 0.4}),
		row("all", 0, []float64{1.0, 1.0, 1.0}, []float64{0.6, 0.6, 0.6}),
	}
	setSpeedUp(rows)
	got := strings.Join(allAtOnceTargets([]benchResult{{Scenario: "latency20", PinSource: true, Rows: rows}}), "\n")
	for _, want := range []string{
		// 3.0/0.25, 3.3/0.3 and 3.6/0.29: 12.00x, 11.00x and 12.41x.
		"window 16 at least 12x window 1: 11.38x (whole process; the copy alone 12.58x), **missed**. Repeat by repeat: median 12.00x, 11.00x to 12.41x; met in 2 of 3.",
		// 100%, 130% and 90%, the first and last with less CPU.
		"**met**. Repeat by repeat: median 100%, 90% to 130%; met in 2 of 3.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("targets lack %q:\n%s", want, got)
		}
	}
	// Without a run for every repeat, no pairs.
	rows[2].RunsCPUSeconds = rows[2].RunsCPUSeconds[:2]
	if got := strings.Join(allAtOnceTargets([]benchResult{{Scenario: "latency1-4096", Rows: rows}}), "\n"); strings.Contains(got, "Repeat by repeat") {
		t.Errorf("repeat by repeat from unpaired runs:\n%s", got)
	}
}

// The command's own rows are held to the latency goals, whole process
// against the command's window 1, repeat by repeat too.
func TestCommandTargets(t *testing.T) {
	row := func(w int, runs ...float64) benchRow {
		return benchRow{Mode: "command", Window: w, ProcessSeconds: median(runs), RunsProcessSeconds: runs}
	}
	got := strings.Join(allAtOnceTargets([]benchResult{{Scenario: "latency20", PinSource: true, Rows: []benchRow{
		row(1, 3.3, 3.0, 3.6), row(16, 0.3, 0.25, 0.3), row(0, 0.2, 0.2, 0.25),
	}}}), "\n")
	for _, want := range []string{
		"The command itself (latency20, radoscp cp, pinned=true, whole process: its prechecks and copy lock included), window 16 at least 12x its window 1: 11.00x (0.300 s against 3.300 s), **missed**. Repeat by repeat: median 12.00x, 11.00x to 12.00x; met in 2 of 3.",
		"auto at least 15x its window 1: 16.50x (0.200 s against 3.300 s), **met**. Repeat by repeat: median 15.00x, 14.40x to 16.50x; met in 2 of 3.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("targets lack %q:\n%s", want, got)
		}
	}
	if got := commandTargets(benchResult{Scenario: "latency20", Rows: []benchRow{row(16, 0.3)}}); got != nil {
		t.Errorf("without the command's window 1: %q", got)
	}
}
