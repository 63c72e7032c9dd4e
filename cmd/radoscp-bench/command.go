package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/radoscp/radoscp/config"
)

// The command contender is radoscp cp itself, the program operators run:
// its own process copies the source objects as a raw object set, with
// its prechecks, its destination's copy lock and all, where the other
// radoscp contenders run the engine alone in a child of this program.
// It is found next to this program (make build build-bench puts both in
// bin/).

// radoscpBinary is the radoscp program next to self.
func radoscpBinary(self string) (string, error) {
	bin := filepath.Join(filepath.Dir(self), "radoscp")
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("the command contender runs %s, which is not there (make build builds it beside bin/radoscp-bench): %w", bin, err)
	}
	return bin, nil
}

// commandCephArgs passes the injected delay to radoscp's client through
// CEPH_ARGS, which librados reads: the types go comma-separated, since
// CEPH_ARGS splits on spaces and Ceph matches a daemon's type anywhere in
// ms_inject_delay_type.
func commandCephArgs(d time.Duration, types string) string {
	var args []string
	for k, v := range injectDelay(d, types) {
		args = append(args, "--"+k, strings.Join(strings.Fields(v), ","))
	}
	return strings.Join(args, " ")
}

// commandArgs is radoscp cp's command line for contender c copying the
// source objects to dst, with the settings the engine's contenders copy
// with.
func commandArgs(cfg config.Config, f benchFlags, plan benchPlan, c contender, dst string) []string {
	window := "auto"
	if c.Window > 0 {
		window = strconv.Itoa(c.Window)
	}
	src := "rados:" + f.pool + "/" + f.prefix
	to := "rados:" + f.pool + "/" + dst
	if f.namespace != "" {
		src = "rados:" + f.pool + "/" + f.namespace + "/" + f.prefix
		to = "rados:" + f.pool + "/" + f.namespace + "/" + dst
	}
	args := []string{"cp", "--config=" + cfg.ConfigFile, "--no-progress", "--json",
		"--object-size", strconv.FormatUint(plan.objectSize, 10),
		"--length", strconv.FormatUint(uint64(f.objects)*plan.objectSize, 10),
		"--window", window, "--max-window", strconv.Itoa(cfg.MaxWindow),
		"--chunk", strconv.FormatUint(cfg.Chunk, 10),
		"--connect-timeout", cfg.ConnectTimeout.String(), "--op-timeout", cmp.Or(cfg.OpTimeout, contenderOpTimeout).String(),
		"--pin-source=" + strconv.FormatBool(cfg.PinSource)}
	for _, kv := range [][2]string{{"--conf", cfg.Conf}, {"--id", cfg.ID}, {"--name", cfg.Name}, {"--keyring", cfg.Keyring}} {
		if kv[1] != "" {
			args = append(args, kv[0], kv[1])
		}
	}
	return append(args, src, to)
}

// runCommand runs radoscp cp once as contender c and returns what it
// measured: the whole process's wall time, CPU and peak RSS from the
// kernel, and the copy's own time from its report (elapsed_seconds).
// It reports no per-copy latency and no client bytes.
func runCommand(ctx context.Context, self string, cfg config.Config, f benchFlags, plan benchPlan, c contender, dst string) (runRecord, error) {
	bin, err := radoscpBinary(self)
	if err != nil {
		return runRecord{}, err
	}
	cmd := exec.CommandContext(ctx, bin, commandArgs(cfg, f, plan, c, dst)...)
	cmd.Env = os.Environ()
	if d := commandCephArgs(f.injectDelay, f.injectDelayType); d != "" {
		cmd.Env = append(cmd.Env, "CEPH_ARGS="+strings.TrimSpace(os.Getenv("CEPH_ARGS")+" "+d))
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return runRecord{}, fmt.Errorf("%s %q: %w: %s", bin, cmd.Args[1:], err, strings.TrimSpace(errOut.String()))
	}
	process := time.Since(start)
	var rep struct {
		Bytes   uint64  `json:"bytes"`
		Elapsed float64 `json:"elapsed_seconds"`
		Window  int     `json:"window"`
		Error   *string `json:"error"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return runRecord{}, fmt.Errorf("reading radoscp's report %q: %w", out.String(), err)
	}
	if want := uint64(f.objects) * plan.objectSize; rep.Bytes != want || rep.Error != nil {
		return runRecord{}, fmt.Errorf("radoscp copied %d bytes of %d: %v", rep.Bytes, want, rep.Error)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return runRecord{}, errors.New("no resource usage of the radoscp process")
	}
	return runRecord{Seconds: rep.Elapsed, ProcessSeconds: process.Seconds(), CPUSeconds: cpuSeconds(*ru),
		MaxRSSBytes: uint64(ru.Maxrss) << 10, Window: rep.Window}, nil
}
