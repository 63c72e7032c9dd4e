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
