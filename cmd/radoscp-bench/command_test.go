package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/test"
)

// The command contender: parsed as command (auto) or command:N, swept over
// --windows and auto, refused with --one, and run as radoscp cp with the
// contenders' settings and the injected delay in CEPH_ARGS.
func TestCommandContender(t *testing.T) {
	for in, want := range map[string]contender{"command": {Mode: "command"}, "command:16": {Mode: "command", Window: 16}} {
		c, err := parseContender(in)
		if err != nil || c != want || c.String() != in {
			t.Errorf("parseContender(%q) = %+v, %v (String %q); want %+v", in, c, err, c.String(), want)
		}
	}
	if _, err := parseContender("command:0"); err == nil || !strings.Contains(err.Error(), "command:WINDOW") {
		t.Errorf("command:0: %v", err)
	}
	f := benchFlags{pool: "p", objects: 4, repeat: 1, windows: "1,16", modes: "offload,command"}
	plan, err := parseBench(f, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range plan.contenders {
		got = append(got, c.String())
	}
	if want := []string{"offload:1", "offload:16", "command:1", "command:16", "command"}; !slices.Equal(got, want) {
		t.Errorf("contenders %q, want %q", got, want)
	}
	f.one, f.dstPrefix = "command:16", "d"
	if _, err := parseBench(f, 1<<20); err == nil || !strings.Contains(err.Error(), "not run by --one") {
		t.Errorf("--one command:16: %v", err)
	}

	cfg := config.Config{Conf: "/c/ceph.conf", ID: "bench", MaxWindow: 64, Chunk: 4 << 20, PinSource: true}
	args := commandArgs(cfg, benchFlags{pool: "p", namespace: "ns", prefix: "src", objects: 4}, benchPlan{objectSize: 1 << 20}, contender{Mode: "command"}, "dst")
	joined := strings.Join(args, " ")
	for _, want := range []string{"cp ", "--window auto", "--max-window 64", "--object-size 1048576", "--length 4194304", "--pin-source=true",
		"--conf /c/ceph.conf", "--id bench", "--json", "rados:p/ns/src rados:p/ns/dst"} {
		if !strings.Contains(joined, want) {
			t.Errorf("radoscp %s: lacks %q", joined, want)
		}
	}
	if got, want := commandCephArgs(20*time.Millisecond, "mds osd"), "--ms_inject_delay_max 0.02"; !strings.Contains(got, want) ||
		!strings.Contains(got, "--ms_inject_delay_type mds,osd") || !strings.Contains(got, "--ms_inject_delay_probability 1") {
		t.Errorf("CEPH_ARGS %q", got)
	}
	if got := commandCephArgs(0, "osd"); got != "" {
		t.Errorf("CEPH_ARGS without a delay: %q", got)
	}
}

// TestE2EBenchCommand runs the command contender on the real cluster:
// radoscp cp, built beside the bench, copies the objects at window 1, 4
// and auto; its rows carry the whole process and the copy's own time, and
// it leaves neither a copy nor its lock object behind.
func TestE2EBenchCommand(t *testing.T) {
	conf := test.Conf(t)
	bin := filepath.Join(filepath.Dir(binary), "radoscp")
	if out, err := exec.Command("go", "build", "-tags", test.BuildTags(), "-o", bin, "../radoscp").CombinedOutput(); err != nil {
		t.Fatalf("building radoscp: %v\n%s", err, out)
	}
	t.Cleanup(func() { os.Remove(bin) })
	prefix := test.UniqueName(t)
	r := runCmd(t, nil, "run", "-c", conf, "--pool", "radoscp-a", "--prefix", prefix, "--objects", "4", "--object-size", "1M",
		"--windows", "1,4", "--modes", "offload,command", "--repeat", "2", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	var res benchResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	var commands []string
	for _, row := range res.Rows {
		if row.Mode != "command" {
			continue
		}
		commands = append(commands, contender{Mode: row.Mode, Window: row.Window}.String())
		if row.Seconds <= 0 || row.ProcessSeconds <= row.Seconds || row.CPUSeconds <= 0 || row.MaxRSSBytes == 0 || len(row.RunsProcessSeconds) != 2 {
			t.Errorf("command row %+v: want a copy time, a longer process, CPU, RSS and two runs", row)
		}
		if row.Window > 0 && row.WindowReached != row.Window {
			t.Errorf("command:%d reported window %d", row.Window, row.WindowReached)
		}
	}
	if want := []string{"command:1", "command:4", "command"}; !slices.Equal(commands, want) {
		t.Errorf("command rows %q, want %q", commands, want)
	}
	out, err := exec.Command("rados", "-c", conf, "-p", "radoscp-a", "ls").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range strings.Fields(string(out)) {
		if strings.HasPrefix(o, prefix+"-dst-") {
			t.Errorf("left behind: %s", o)
		}
	}
}
