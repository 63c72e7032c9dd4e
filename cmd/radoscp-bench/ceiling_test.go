package main

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Ceph's delayed delivery hands out a connection's replies oldest first,
// each time any of its timers fires: the first reply, drawn 10 ms, leaves
// when the second's 1 ms timer fires, and the second at the first's.
func TestModelDeliveryOldestFirst(t *testing.T) {
	delays := []float64{0.010, 0.001}
	s := &modelSim{delay: func() float64 { d := delays[0]; delays = delays[1:]; return d }, queued: make([][]modelReply, 1)}
	s.push(modelEvent{at: 0.001, reply: modelReply{obj: 0}})
	s.push(modelEvent{at: 0.002, reply: modelReply{obj: 1}})
	for i, want := range []float64{0.003, 0.011} {
		at, r := s.next()
		if r.obj != i || math.Abs(at-want) > 1e-12 {
			t.Fatalf("delivery %d: object %d's reply at %.4f s, want object %d's at %.4f s", i, r.obj, at, i, want)
		}
	}
}

// At window 1 every copy waits its own delay, half the maximum on average,
// and the OSD's time (the first does not wait for its pin).
func TestModelWindowOneIsSerial(t *testing.T) {
	m := delayModel{objects: 256, osds: 3, maxDelay: 0.020, service: 0.0025, statService: modelStatService}
	got := m.copySeconds(1, rand.New(rand.NewPCG(7, 7)))
	want := 256 * (0.010 + 0.0025)
	if math.Abs(got-want) > 0.05*want {
		t.Fatalf("window 1 took %.3f s in the model, want about %.3f s", got, want)
	}
}

// With a delay, a wider window brings the time down, but never by more
// than the window: every copy still waits its own delay.
func TestModelWindowSpeedUp(t *testing.T) {
	m := delayModel{objects: 256, osds: 3, maxDelay: 0.020, service: 0.0025, statService: modelStatService}
	one := m.copySeconds(1, rand.New(rand.NewPCG(3, 3)))
	prev := one
	for _, w := range []int{2, 4, 8, 16, 64} {
		got := m.copySeconds(w, rand.New(rand.NewPCG(3, 3)))
		if got >= prev {
			t.Errorf("window %d took %.3f s, no faster than the narrower window's %.3f s", w, got, prev)
		}
		if speed := one / got; speed > float64(w)*1.1 {
			t.Errorf("window %d was %.2fx window 1 in the model: more than the window allows", w, speed)
		}
		prev = got
	}
	if w2 := one / m.copySeconds(2, rand.New(rand.NewPCG(3, 3))); w2 < 1.9 {
		t.Errorf("window 2 was %.2fx window 1 in the model; with nothing but delay it should be about 2x", w2)
	}
}

// latency20Run is the parts of the 2026-12-06 09:58 latency20 run that
// the ceiling is fitted to: window 1 and 16 of the engine's process.
func latency20Run() benchResult {
	return benchResult{Scenario: "latency20", Objects: 256, InjectDelayS: 0.020, Rows: []benchRow{
		{Mode: "offload", Window: 1, Seconds: 3.190, ProcessSeconds: 3.224, P50ms: 12.1},
		{Mode: "offload", Window: 16, Seconds: 0.233, ProcessSeconds: 0.267, P50ms: 12.8},
	}}
}

// The ceiling is fitted to the measured run and said beside the target's
// verdict; a run without window 1's timing has none.
func TestCeilingNote(t *testing.T) {
	r := latency20Run()
	med, p10, p90, ok := ceiling(r, 16, "offload")
	if !ok {
		t.Fatal("no ceiling for a run with window 1 and 16 timed")
	}
	if !(p10 <= med && med <= p90) || med < 11 || med > 14 {
		t.Fatalf("ceiling %.2fx (%.2fx to %.2fx): not the 12-13x the 2026-12-06 run's parts give", med, p10, p90)
	}
	note := ceilingNote(r, 16, "offload", 3.224/0.267)
	if !strings.Contains(note, "A client whose copy costs nothing") || !strings.Contains(note, "% of it.") {
		t.Fatalf("note %q", note)
	}
	// radoscp cp's ceiling is the same copy with the command's own fixed
	// costs (its checks and lock): lower than the engine's.
	r.Rows = append(r.Rows, benchRow{Mode: "command", Window: 1, Seconds: 3.061, ProcessSeconds: 3.146},
		benchRow{Mode: "command", Window: 16, Seconds: 0.223, ProcessSeconds: 0.310})
	if cmdMed, _, _, ok := ceiling(r, 16, "command"); !ok || cmdMed >= med {
		t.Fatalf("the command's ceiling %.2fx (ok %t), want one below the engine's %.2fx", cmdMed, ok, med)
	}
	r.Rows[0].ProcessSeconds = 0
	if note := ceilingNote(r, 16, "offload", 12); note != "" {
		t.Fatalf("a run without window 1's process time got a ceiling: %q", note)
	}
	// Deterministic: the same run gives the same ceiling.
	again, _, _, _ := ceiling(latency20Run(), 16, "offload")
	if again != med {
		t.Fatalf("ceiling %.4f then %.4f for the same run", med, again)
	}
}

// The model, fitted to a run of latency20 (2026-12-06, 09:58 UTC, on the
// test cluster), gives the copy times that run measured at windows 1 to
// 16, where the OSDs keep up: so its speed-up is the ceiling of the
// window's, and not a guess.
func TestModelFitsMeasuredRun(t *testing.T) {
	results, err := readResults([]string{"testdata/latency20-2026-12-06.json"})
	if err != nil {
		t.Fatal(err)
	}
	rows := modelFit(results[0])
	if len(rows) < 5 {
		t.Fatalf("fitted %d windows, want 1 to 64", len(rows))
	}
	for _, f := range rows {
		if f.window > 16 {
			continue
		}
		if ratio := f.measured / f.asLoaded; ratio < 0.95 || ratio > 1.05 {
			t.Errorf("window %d: measured %.3f s, the model %.3f s (%.0f%%)", f.window, f.measured, f.asLoaded, 100*ratio)
		}
	}
	var b strings.Builder
	if err := writeFit(&b, results[0]); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "OSDs as measured") || strings.Count(b.String(), "\n") != len(rows)+2 {
		t.Fatalf("fit table:\n%s", b.String())
	}
}
