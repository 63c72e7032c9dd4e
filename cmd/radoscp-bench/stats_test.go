package main

import (
	"strings"
	"testing"
)

// Speed-up is over window 1 when it ran; otherwise over the scenario's
// anchor (the rados cp loop, or in CephFS the clone anchor), and the
// column says which; with neither, it is "-", never 0.00x.
func TestSpeedUpAnchor(t *testing.T) {
	row := func(mode string, window, files int, seconds float64) benchRow {
		return benchRow{Mode: mode, Window: window, Files: files, Seconds: seconds}
	}
	for _, tc := range []struct {
		name     string
		rows     []benchRow
		over     string
		header   string
		speedUps []string
	}{
		{"window 1", []benchRow{row("offload", 1, 0, 4), row("offload", 16, 0, 1), row("rados-cp", 0, 0, 8), row("client", 16, 0, 2)},
			"offload:1", "speed-up vs window 1", []string{"1.00x", "4.00x", "0.50x", "2.00x"}},
		{"no window 1", []benchRow{row("offload", 16, 0, 1), row("auto", 0, 0, 2), row("rados-cp", 0, 0, 8), row("client", 16, 0, 4)},
			"rados-cp", "speed-up vs rados cp loop", []string{"8.00x", "4.00x", "1.00x", "2.00x"}},
		{"client window 1 is no anchor", []benchRow{row("client", 1, 0, 2), row("offload", 4, 0, 1)},
			"", "speed-up", []string{"-", "-"}},
		{"clone anchor", []benchRow{row("clone", 0, 1, 3), row("clone", 0, 4, 2), row("fscopy", 16, 4, 1)},
			"clone:1", "speed-up vs clone anchor", []string{"1.00x", "1.50x", "3.00x"}},
		{"no clone anchor", []benchRow{row("clone", 0, 4, 2), row("fscopy", 16, 4, 1)},
			"", "speed-up", []string{"-", "-"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			over := setSpeedUp(tc.rows)
			if over != tc.over {
				t.Errorf("speed-up over %q, want %q", over, tc.over)
			}
			var b strings.Builder
			writeTable(&b, tc.rows, over)
			lines := strings.Split(strings.TrimSpace(b.String()), "\n")
			if h := strings.Split(lines[0], " | ")[3]; h != tc.header {
				t.Errorf("header %q, want %q", h, tc.header)
			}
			for i, want := range tc.speedUps {
				if got := strings.Split(lines[2+i], " | ")[3]; got != want {
					t.Errorf("row %d (%s): speed-up %q, want %q", i, tc.rows[i].label(), got, want)
				}
			}
			if strings.Contains(b.String(), "0.00x") {
				t.Errorf("a 0.00x speed-up:\n%s", b.String())
			}
		})
	}
}

// A report of runs without window 1 says so in the targets and draws no
// line for them, rather than reporting speed-ups over nothing.
func TestReportWithoutWindow1(t *testing.T) {
	rows := []benchRow{{Mode: "offload", Window: 16, Seconds: 1, MiBps: 100}, {Mode: "rados-cp", Seconds: 4, MiBps: 25}}
	res := benchResult{Scenario: "latency10", Rows: rows, PinSource: true}
	res.SpeedUpOver = setSpeedUp(res.Rows)
	md := renderReport([]benchResult{res}, "", "")
	for _, want := range []string{
		"(latency10), window 16 at least 8x window 1: window 1 not in the sweep.",
		"| speed-up vs rados cp loop |",
		"| radoscp window 16 | 1.000 | 100.0 | 4.00x |",
		"`radoscp-bench run --scenario latency10`, pinning on (`--pin-source`, the default)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// The child-process flags are run's own business: hidden from --help.
func TestRunHidesChildFlags(t *testing.T) {
	fl := newRunCommand().Flags()
	for _, name := range []string{"one", "dst-prefix"} {
		if f := fl.Lookup(name); f == nil || !f.Hidden {
			t.Errorf("--%s: %+v, want a hidden flag", name, f)
		}
	}
}
