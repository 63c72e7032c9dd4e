package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Metrics are served at /metrics while a copy runs: a scrape in the middle
// of a slow copy (OSD replies delayed) sees the window and the copies so far.
func TestE2EMetricsScrapedDuringCopy(t *testing.T) {
	conf, src, dst, _, _, _ := copySetup(t, 32)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(binary, "cp", "-c", conf, "--window", "4", "--object-size", "1M", "--length", "32M",
		"--metrics-addr", addr, "--no-progress", "rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
	cmd.Env = append(os.Environ(), "CEPH_ARGS=--ms_inject_delay_type=osd --ms_inject_delay_probability=1 --ms_inject_delay_max=0.2")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	var body string
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body = string(b)
			// The counter is exported at 0 before the copy starts:
			// wait for a copy to have finished.
			if okCopies.MatchString(body) {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, want := range []string{"radoscp_window 4", `radoscp_copies_total{outcome="ok"}`, "radoscp_copy_latency_seconds_bucket", "radoscp_inflight_objects"} {
		if !strings.Contains(body, want) {
			// The output is read once the process is gone: it writes
			// into out until then.
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("scrape during the copy lacks %q:\n%s\noutput: %s", want, body, out.String())
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("copy: %v\n%s", err, out.String())
	}
}

var okCopies = regexp.MustCompile(`radoscp_copies_total\{outcome="ok"\} [1-9]`)
