package main

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
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
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
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
