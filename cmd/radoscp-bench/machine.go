package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// machineInfo is what a benchmark ran on.
type machineInfo struct {
	CPUs     int    `json:"cpus"`
	CPUModel string `json:"cpu_model"`
	MemBytes uint64 `json:"mem_bytes"`
	Ceph     string `json:"ceph_version"`
	Kernel   string `json:"kernel"`
	Go       string `json:"go"`
	Date     string `json:"date"`
	// CoarseClockNs is the resolution of CLOCK_MONOTONIC_COARSE, the
	// clock Ceph's messenger times its events by, injected delays too
	// (0: unknown).
	CoarseClockNs int64 `json:"coarse_clock_ns,omitempty"`
}

// describeMachine reads /proc and asks the ceph CLI for its version;
// what it cannot learn stays empty.
func describeMachine() machineInfo {
	m := machineInfo{CPUs: runtime.NumCPU(), Go: runtime.Version(), Date: time.Now().UTC().Format(time.RFC3339)}
	m.CPUModel = procField("/proc/cpuinfo", "model name")
	if kb := procField("/proc/meminfo", "MemTotal"); kb != "" {
		var n uint64
		for _, c := range strings.TrimSuffix(kb, " kB") {
			if c >= '0' && c <= '9' {
				n = n*10 + uint64(c-'0')
			}
		}
		m.MemBytes = n << 10
	}
	if out, err := exec.Command("ceph", "--version").Output(); err == nil {
		m.Ceph = strings.TrimSpace(string(out))
	}
	var res unix.Timespec
	if unix.ClockGetres(unix.CLOCK_MONOTONIC_COARSE, &res) == nil {
		m.CoarseClockNs = res.Nano()
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

// delayNote says, for a run whose replies were delayed by up to delay
// (ms_inject_delay_max), how the delay was carried out. Ceph's messenger
// stamps a delayed message due at its coarse monotonic clock's reading
// plus the delay drawn, releases it once that clock reads at least the
// due time, and waits for that in epoll_wait with a timeout in whole
// milliseconds from the same clock. With that clock as it is (clock
// "coarse"), every delayed reply is released on a tick of it, and while
// less than a millisecond seems left, the thread polls without sleeping
// until the tick; with the clock shim (clock "fine") the reply waits the
// delay drawn, and the thread sleeps through its last millisecond.
// "" when nothing was delayed or the tick is not known.
func delayNote(delay, tick time.Duration, clock string) string {
	if delay <= 0 || tick <= 0 {
		return ""
	}
	if clock == fineDelayClock {
		return fmt.Sprintf("Injected delay: each reply waited the delay drawn, up to %v: the contenders' Ceph clients read a fine clock "+
			"where Ceph reads its coarse one, which ticks every %v here, and sleep where the messenger would poll for the last millisecond "+
			"(`--delay-clock fine`, radoscp-bench's clock shim; docs/benchmarks.md).", delay, tick)
	}
	s := fmt.Sprintf("Injected delay: Ceph's messenger times it on its coarse monotonic clock, which ticks every %v here, "+
		"so each delayed reply is released on a tick, up to a tick later than the delay drawn (at most %v)", tick, delay)
	if delay < tick {
		s += fmt.Sprintf("; a reply is delayed by up to %v, not %v", tick, delay)
	}
	return s + ". While a reply is due within the tick, the client's messenger threads poll without sleeping: client CPU that a network's delay would not cost (docs/benchmarks.md)."
}

// procField is the value of the first "key : value" line with key.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
