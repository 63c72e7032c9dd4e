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
