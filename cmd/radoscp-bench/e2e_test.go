package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/test"
)

func TestE2EBench(t *testing.T) {
	conf := test.Conf(t)
	prefix := test.UniqueName(t)
	base := []string{"run", "-c", conf, "--pool", "radoscp-a", "--prefix", prefix, "--objects", "4", "--object-size", "1M",
		"--windows", "1,4", "--client-windows", "4", "--repeat", "1"}
	r := runCmd(t, nil, append(base, "--json")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	var res struct {
		Machine struct {
			CPUs int `json:"cpus"`
		} `json:"machine"`
		PinSource   bool   `json:"pin_source"`
		SpeedUpOver string `json:"speedup_over"`
		Rows        []struct {
			Mode        string  `json:"mode"`
			Window      int     `json:"window"`
			Reached     int     `json:"window_reached"`
			MiBps       float64 `json:"mib_per_second"`
			CPU         float64 `json:"client_cpu_seconds"`
			RSS         uint64  `json:"client_peak_rss_bytes"`
			ClientBytes uint64  `json:"client_bytes"`
			Seconds     float64 `json:"wall_seconds"`
			Process     float64 `json:"process_seconds"`
			Fixed       float64 `json:"fixed_seconds"`
			CPUPerObj   float64 `json:"client_cpu_ms_per_object"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	seen := map[string]int{}
	for _, row := range res.Rows {
		seen[row.Mode]++
		if row.MiBps <= 0 || row.RSS == 0 {
			t.Errorf("row %+v: MiB/s or peak RSS not positive", row)
		}
		if want := uint64(0); row.Mode == "client" {
			if row.ClientBytes != 2*4*oneMiB {
				t.Errorf("client copy moved %d bytes through the client, want %d", row.ClientBytes, 2*4*oneMiB)
			}
		} else if row.ClientBytes != want {
			t.Errorf("%s moved %d bytes through the client", row.Mode, row.ClientBytes)
		}
		if row.Mode == "auto" && (row.Reached < 1 || row.Reached > 64) {
			t.Errorf("auto reached window %d, want 1..64 (--max-window)", row.Reached)
		}
		// All at once: every object's copy-from in flight together.
		if row.Mode == "all" && row.Reached != 4 {
			t.Errorf("all at once reached window %d, want 4 (the objects)", row.Reached)
		}
		// The whole child process holds the copy and costs more than it
		// (one repeat: the medians are that run's figures).
		if row.CPUPerObj <= 0 || row.Process <= row.Seconds || math.Abs(row.Fixed-(row.Process-row.Seconds)) > 1e-6 {
			t.Errorf("row %s: CPU ms/object %v, process %v s, fixed %v s, copy %v s: want positive, process > copy, fixed = process - copy",
				row.Mode, row.CPUPerObj, row.Process, row.Fixed, row.Seconds)
		}
	}
	if want := (map[string]int{"offload": 2, "auto": 1, "all": 1, "rados-cp": 1, "client": 1}); fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("rows by mode %v, want %v: %s", seen, want, r.stdout)
	}
	if res.Machine.CPUs < 1 {
		t.Errorf("no machine description: %s", r.stdout)
	}
	// radoscp's contenders copy as radoscp cp does: pinned.
	if !res.PinSource || res.SpeedUpOver != "offload:1" {
		t.Errorf("pin_source %v, speedup_over %q; want true and offload:1", res.PinSource, res.SpeedUpOver)
	}

	// report turns it into markdown, a plot and a spliced README.
	dir := t.TempDir()
	results, md, plot, readme := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.md"), filepath.Join(dir, "s.svg"), filepath.Join(dir, "README.md")
	writeFile(t, results, r.stdout)
	writeFile(t, readme, "intro\n<!-- bench-results:start -->\nold\n<!-- bench-results:end -->\nrest\n")
	r = runCmd(t, nil, "report", "--out", md, "--plot", plot, "--splice", readme, results)
	if r.code != 0 {
		t.Fatalf("report: exit %d\nstderr: %s", r.code, r.stderr)
	}
	report, _ := os.ReadFile(md)
	for _, want := range []string{"| radoscp window 4 |", "| rados cp loop |", "| radoscp all at once (window 4) |", "| CPU ms/object | process s | fixed s |",
		"auto within 10% of all at once", "| client copy window 4 |", "radoscp auto (reached", "#### Targets",
		"| speed-up vs window 1 |", "| radoscp window 1 | ", " | 1.00x | ", "pinning on (`--pin-source`, the default)"} {
		if !bytes.Contains(report, []byte(want)) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	spliced, _ := os.ReadFile(readme)
	if !bytes.Contains(spliced, report) || bytes.Contains(spliced, []byte("old")) || !bytes.HasSuffix(spliced, []byte("<!-- bench-results:end -->\nrest\n")) {
		t.Errorf("spliced README:\n%s", spliced)
	}
	if svg, err := os.ReadFile(plot); err != nil || !bytes.Contains(svg, []byte("<svg")) {
		t.Errorf("plot: %v, %d bytes", err, len(svg))
	}
}

// Bad bench values are refused with exit 2 before any object is written.
func TestE2EBenchBadFlags(t *testing.T) {
	conf := test.Conf(t)
	prefix := test.UniqueName(t)
	for _, tc := range []struct{ flag, value, says string }{
		{"--scenario", "fast", `--scenario "fast"`},
		{"--modes", "offload,magic", `unknown mode "magic"`},
		{"--windows", "1,0", `--windows "1,0"`},
		{"--window", "automatic", `"automatic"`},
	} {
		r := runCmd(t, nil, "run", "-c", conf, "--pool", "radoscp-a", "--prefix", prefix, tc.flag, tc.value)
		if r.code != 2 || !strings.Contains(r.stderr, tc.says) {
			t.Errorf("%s %s: exit %d, stderr %q; want 2 and %q", tc.flag, tc.value, r.code, r.stderr, tc.says)
		}
	}
	if p := test.OpenPool(t, conf, "radoscp-a"); func() bool { _, err := p.Stat(layout.Prefix(prefix).ObjectName(0)); return err == nil }() {
		t.Errorf("a refused bench wrote source objects")
	}
}

// The least cephx caps of run, as README.md documents them: write on the
// pool it benchmarks in, nothing else; it leaves no objects behind.
func TestE2EBenchLeastPrivilege(t *testing.T) {
	conf := test.Conf(t)
	name, prefix := test.UniqueName(t), test.UniqueName(t)
	keyring := test.Client(t, name, "mon", "allow r", "osd", "allow rw pool=radoscp-b")
	r := runCmd(t, nil, "run", "-c", conf, "--no-progress", "--id", name, "--keyring", keyring,
		"--pool", "radoscp-b", "--prefix", prefix, "--objects", "2", "--object-size", "1M", "--windows", "1,2", "--repeat", "1", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if objs := listNamed(t, conf, "radoscp-b", prefix); len(objs) > 0 {
		t.Errorf("bench left objects: %q", objs)
	}
}

// --offload-only with the client mode is refused as radoscp refuses bad
// input: exit 2, one line on stderr, nothing on stdout, nothing written.
func TestE2EBenchOffloadOnlyClient(t *testing.T) {
	conf := test.Conf(t)
	d := test.UniqueName(t)
	r := runCmd(t, []string{"XDG_CONFIG_HOME=" + t.TempDir()}, "run", "-c", conf,
		"--pool", "radoscp-b", "--prefix", d, "--objects", "1", "--offload-only", "--modes", "offload,client")
	if r.code != 2 || r.stdout != "" {
		t.Errorf("exit %d, stdout %q; want 2 and nothing", r.code, r.stdout)
	}
	msg := strings.TrimRight(r.stderr, "\n")
	if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "radoscp-bench: ") {
		t.Errorf("stderr is not one line starting radoscp-bench: %q", r.stderr)
	}
	for _, w := range []string{"--offload-only", "client"} {
		if !strings.Contains(msg, w) {
			t.Errorf("stderr %q does not say %q", msg, w)
		}
	}
	if objs := listNamed(t, conf, "radoscp-b", d); len(objs) > 0 {
		t.Errorf("objects written to radoscp-b: %q", objs)
	}
}

// The client contender's own read-and-write loop copies every byte, with
// chunks smaller than an object, a partial last chunk and more chunks than
// the window, and counts what it read and wrote.
func TestClientCopy(t *testing.T) {
	conf := test.Conf(t)
	p := test.OpenPool(t, conf, "radoscp-a")
	src, dst := test.UniqueName(t), test.UniqueName(t)
	const objects, size, chunk = 3, 1<<20 + 64<<10, 256 << 10
	if err := ensureSources(p, src, objects, size); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		removeObjects(p, layout.Prefix(src), objects)
		removeObjects(p, layout.Prefix(dst), objects)
	})
	rec, err := clientCopy(context.Background(), p, layout.Prefix(src), layout.Prefix(dst), objects, size, chunk, 4)
	if err != nil {
		t.Fatal(err)
	}
	if rec.ClientBytes != 2*objects*size || !rec.ClientMeasured || rec.Window != 4 || len(rec.LatencyMs) != 0 || rec.Seconds <= 0 {
		t.Errorf("record %+v: want %d client bytes, window 4, no latencies", rec, 2*objects*size)
	}
	want, got := make([]byte, size+1), make([]byte, size+1)
	for i := range uint64(objects) {
		n, err := p.Read(layout.Prefix(src).ObjectName(i), want, 0)
		if err != nil || n != size {
			t.Fatalf("source %d: %d bytes, %v", i, n, err)
		}
		m, err := p.Read(layout.Prefix(dst).ObjectName(i), got, 0)
		if err != nil || !bytes.Equal(got[:m], want[:n]) {
			t.Errorf("copy of object %d: %d bytes, %v; differs from its source", i, m, err)
		}
	}
	// A missing source fails the copy with the object's name.
	if _, err := clientCopy(context.Background(), p, layout.Prefix(src+"-none"), layout.Prefix(dst), 1, size, chunk, 2); err == nil || !strings.Contains(err.Error(), src+"-none") {
		t.Errorf("missing source: %v", err)
	}
}

// A run with an injected delay times it on a fine clock by default: every
// contender's process loaded the clock shim (the parent fails the run if
// one says its coarse clock still ticks), and the result says which clock
// was used; --delay-clock coarse leaves Ceph's own, and says so too.
func TestE2EBenchDelayClock(t *testing.T) {
	conf := test.Conf(t)
	prefix := test.UniqueName(t)
	base := []string{"run", "-c", conf, "--pool", "radoscp-a", "--prefix", prefix, "--objects", "4", "--object-size", "64K",
		"--modes", "offload,auto", "--windows", "1", "--repeat", "1", "--inject-osd-delay", "1ms", "--json"}
	for _, clock := range []string{"", "fine", "coarse"} {
		args := base
		if clock != "" {
			args = append(append([]string(nil), base...), "--delay-clock", clock)
		}
		r := runCmd(t, nil, args...)
		if r.code != 0 {
			t.Fatalf("--delay-clock %q: exit %d\nstderr: %s", clock, r.code, r.stderr)
		}
		var res struct {
			Delay   float64                 `json:"inject_osd_delay_seconds"`
			Clock   string                  `json:"delay_clock"`
			Rows    []struct{ Mode string } `json:"rows"`
			Machine struct {
				CoarseClockNs int64 `json:"coarse_clock_ns"`
			} `json:"machine"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
			t.Fatalf("%v: %s", err, r.stdout)
		}
		want := clock
		if want == "" {
			want = "fine"
		}
		if res.Clock != want || res.Delay != 0.001 || len(res.Rows) != 2 || res.Machine.CoarseClockNs <= 0 {
			t.Errorf("--delay-clock %q: delay_clock %q, delay %v s, %d rows, coarse clock %d ns; want %q, 0.001, 2, > 0",
				clock, res.Clock, res.Delay, len(res.Rows), res.Machine.CoarseClockNs, want)
		}
	}
	r := runCmd(t, nil, append(base, "--delay-clock", "precise")...)
	if r.code != 2 || !strings.Contains(r.stderr, `--delay-clock "precise"`) {
		t.Errorf("--delay-clock precise: exit %d, stderr %q; want 2 naming it", r.code, r.stderr)
	}
}
