package main

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

var binary string

func TestMain(m *testing.M) { test.MainWithBinary(m, "radoscp", &binary) }

const oneMiB = 1 << 20

type result struct {
	code           int
	stdout, stderr string
}

func runCmd(t *testing.T, env []string, args ...string) result {
	t.Helper()
	r := test.RunBinary(t, binary, env, args...)
	return result{code: r.Code, stdout: r.Stdout, stderr: r.Stderr}
}

func objName(prefix string, i int) string { return fmt.Sprintf("%s.%08x", prefix, i) }

// copySetup is what most end-to-end copies start from: the cluster's conf,
// a source prefix with n random 1 MiB objects in radoscp-a, and a
// destination prefix in radoscp-b whose objects are removed at the end.
func copySetup(t *testing.T, n int) (conf, src, dst string, a, b *rados.Pool, data [][]byte) {
	t.Helper()
	conf = test.Conf(t)
	src, dst = test.UniqueName(t), test.UniqueName(t)
	a, b = test.OpenPool(t, conf, "radoscp-a"), test.OpenPool(t, conf, "radoscp-b")
	data = writeObjects(t, a, src, n, oneMiB)
	cleanupObjects(t, b, dst, n)
	return conf, src, dst, a, b, data
}

// writeObjects writes n random objects of size bytes and removes them at the end.
func writeObjects(t *testing.T, p *rados.Pool, prefix string, n, size int) [][]byte {
	t.Helper()
	var data [][]byte
	for i := 0; i < n; i++ {
		b := make([]byte, size)
		rand.Read(b)
		if err := p.WriteFull(objName(prefix, i), b); err != nil {
			t.Fatal(err)
		}
		data = append(data, b)
	}
	cleanupObjects(t, p, prefix, n)
	return data
}

func cleanupObjects(t *testing.T, p *rados.Pool, prefix string, n int) {
	t.Cleanup(func() {
		for i := 0; i < n; i++ {
			p.Remove(objName(prefix, i))
		}
	})
}

// assertObjects checks that objects 0..len(want)-1 of prefix in p hold
// want's bytes.
func assertObjects(t *testing.T, p *rados.Pool, prefix string, want [][]byte) {
	t.Helper()
	for i := range want {
		if got := readObject(t, p, objName(prefix, i)); !bytes.Equal(got, want[i]) {
			t.Errorf("%s object %d differs (len %d, want %d)", prefix, i, len(got), len(want[i]))
		}
	}
}

func readObject(t *testing.T, p *rados.Pool, oid string) []byte {
	t.Helper()
	st, err := p.Stat(oid)
	if err != nil {
		t.Fatalf("stat %s: %v", oid, err)
	}
	buf := make([]byte, st.Size)
	n, err := p.Read(oid, buf, 0)
	if err != nil {
		t.Fatalf("read %s: %v", oid, err)
	}
	return buf[:n]
}

func absent(t *testing.T, p *rados.Pool, oid string) {
	t.Helper()
	if _, err := p.Stat(oid); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("%s/%s: stat gives %v, want ENOENT", p.Name(), oid, err)
	}
}

func parseJSON(t *testing.T, r result) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &m); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\nstdout: %s\nstderr: %s", err, r.stdout, r.stderr)
	}
	return m
}

func TestE2ECopyJSON(t *testing.T) {
	conf := test.Conf(t)
	src, dst := test.UniqueName(t), test.UniqueName(t)
	a, b := test.OpenPool(t, conf, "radoscp-a"), test.OpenPool(t, conf, "radoscp-b")
	data := writeObjects(t, a, src, 8, oneMiB)
	cleanupObjects(t, b, dst, 9)
	r := runCmd(t, nil, "cp", "-c", conf, "--window", "8", "--object-size", "1M", "--length", "8M", "--json",
		"rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	m := parseJSON(t, r)
	for _, k := range []string{"bytes", "published_eof", "objects", "window", "serial", "fallback", "generation", "elapsed_seconds", "error", "errno"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, r.stdout)
		}
	}
	if m["bytes"] != float64(8*oneMiB) || m["published_eof"] != float64(8*oneMiB) {
		t.Errorf("bytes/published_eof: %s", r.stdout)
	}
	if m["objects"] != float64(8) || m["window"] != float64(8) {
		t.Errorf("objects/window: %s", r.stdout)
	}
	if m["error"] != nil || m["errno"] != float64(0) || m["fallback"] != false || m["serial"] != false {
		t.Errorf("error/errno/fallback/serial: %s", r.stdout)
	}
	if e, _ := m["elapsed_seconds"].(float64); e <= 0 {
		t.Errorf("elapsed_seconds: %s", r.stdout)
	}
	if _, ok := m["generation"].(map[string]any); !ok {
		t.Errorf("generation is not an object: %s", r.stdout)
	}
	assertObjects(t, b, dst, data[:8])
	absent(t, b, objName(dst, 8))
}

// restrictedCaps grants write on the destination objects allow says, and
// on the copy lock's object (truncate.RawLockObject) with the lock class.
func restrictedCaps(dst string, allow func(int) bool) string {
	lock := dst + ".radoscp-lock"
	caps := "allow r pool=radoscp-a, allow rw pool=radoscp-b object_prefix " + lock + ", allow pool radoscp-b object_prefix " + lock + " class lock"
	for i := 0; i < 8; i++ {
		if allow(i) {
			caps += ", allow rw pool=radoscp-b object_prefix " + objName(dst, i)
		}
	}
	return caps
}

func TestE2EPartial(t *testing.T) {
	conf := test.Conf(t)
	src, dst, client := test.UniqueName(t), test.UniqueName(t), test.UniqueName(t)
	a, b := test.OpenPool(t, conf, "radoscp-a"), test.OpenPool(t, conf, "radoscp-b")
	data := writeObjects(t, a, src, 8, oneMiB)
	cleanupObjects(t, b, dst, 8)
	keyring := test.Client(t, client, "mon", "allow r", "osd", restrictedCaps(dst, func(i int) bool { return i != 3 }))
	r := runCmd(t, nil, "cp", "-c", conf, "--id", client, "--keyring", keyring, "--window", "8", "--object-size", "1M",
		"--length", "8M", "--json", "rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
	if r.code != 3 {
		t.Fatalf("exit %d, want 3\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	m := parseJSON(t, r)
	if m["bytes"] != float64(3*oneMiB) || m["published_eof"] != float64(3*oneMiB) || m["errno"] != float64(1) || m["error"] == nil {
		t.Errorf("JSON: %s", r.stdout)
	}
	assertObjects(t, b, dst, data[:3])
	for i := 3; i < 8; i++ {
		absent(t, b, objName(dst, i))
	}
}

func TestE2EAllDenied(t *testing.T) {
	conf := test.Conf(t)
	src, dst, client := test.UniqueName(t), test.UniqueName(t), test.UniqueName(t)
	a, b := test.OpenPool(t, conf, "radoscp-a"), test.OpenPool(t, conf, "radoscp-b")
	writeObjects(t, a, src, 8, oneMiB)
	cleanupObjects(t, b, dst, 8)
	keyring := test.Client(t, client, "mon", "allow r", "osd", restrictedCaps(dst, func(int) bool { return false }))
	r := runCmd(t, nil, "cp", "-c", conf, "--id", client, "--keyring", keyring, "--window", "8", "--object-size", "1M",
		"--length", "8M", "--json", "rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	m := parseJSON(t, r)
	if m["bytes"] != float64(0) || m["error"] == nil {
		t.Errorf("JSON: %s", r.stdout)
	}
	for i := 0; i < 8; i++ {
		absent(t, b, objName(dst, i))
	}
}

func TestE2EMetricsTextfile(t *testing.T) {
	conf, src, dst, _, _, _ := copySetup(t, 2)
	file := filepath.Join(t.TempDir(), "radoscp.prom")
	r := runCmd(t, nil, "cp", "-c", conf, "--object-size", "1M", "--length", "2M", "--metrics-textfile", file,
		"rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"radoscp_copies_total", "radoscp_copy_latency_seconds"} {
		if !bytes.Contains(got, []byte(m)) {
			t.Errorf("metrics file lacks %s:\n%s", m, got)
		}
	}
}

func windowLine(t *testing.T, out string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "window" {
			return l
		}
	}
	t.Fatalf("no window line in:\n%s", out)
	return ""
}

func TestE2EConfig(t *testing.T) {
	test.Conf(t)
	env := []string{"RADOSCP_WINDOW=7", "XDG_CONFIG_HOME=" + t.TempDir()}
	r := runCmd(t, env, "config")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	l := windowLine(t, r.stdout)
	if f := strings.Fields(l); len(f) < 3 || f[1] != "7" || !strings.Contains(l, "RADOSCP_WINDOW") {
		t.Errorf("window line %q: want 7 from RADOSCP_WINDOW", l)
	}
	r = runCmd(t, env, "config", "--window", "9")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	l = windowLine(t, r.stdout)
	if f := strings.Fields(l); len(f) < 3 || f[1] != "9" || strings.Contains(l, "RADOSCP_WINDOW") || !strings.Contains(l, "flag") {
		t.Errorf("window line %q: want 9 from the flag", l)
	}
}

func TestE2EStriper(t *testing.T) {
	conf := test.Conf(t)
	name, name2 := test.UniqueName(t), test.UniqueName(t)
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	data := make([]byte, 5*oneMiB+12345)
	rand.Read(data)
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	radosCLI := func(args ...string) {
		t.Helper()
		if o, err := test.RadosCLI(conf, args...); err != nil {
			t.Fatalf("rados %q: %v\n%s", args, err, o)
		}
	}
	radosCLI("-p", "radoscp-a", "--striper", "put", name, in)
	t.Cleanup(func() {
		exec.Command("rados", "-c", conf, "-p", "radoscp-a", "--striper", "rm", name).Run()
		exec.Command("rados", "-c", conf, "-p", "radoscp-b", "--striper", "rm", name2).Run()
	})
	r := runCmd(t, nil, "cp", "-c", conf, "striper:radoscp-a/"+name, "striper:radoscp-b/"+name2)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	radosCLI("-p", "radoscp-b", "--striper", "get", name2, out)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Errorf("striped copy differs: %d bytes, want %d", len(got), len(data))
	}
}

func TestE2ESIGINT(t *testing.T) {
	conf, src, dst, _, b, _ := copySetup(t, 64)
	cmd := exec.Command(binary, "cp", "-c", conf, "--window", "2", "--object-size", "1M", "--length", "64M", "--json",
		"rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
	cmd.Env = append(os.Environ(), "CEPH_ARGS=--ms_inject_delay_type=osd --ms_inject_delay_probability=1 --ms_inject_delay_max=0.5")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("radoscp did not stop within 60s of SIGINT\nstderr: %s", e.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	r := result{code: code, stdout: o.String(), stderr: e.String()}
	if code != 3 && code != 1 {
		t.Fatalf("exit %d, want 3 or 1\nstdout: %s\nstderr: %s", code, r.stdout, r.stderr)
	}
	m := parseJSON(t, r)
	n, _ := m["bytes"].(float64)
	if uint64(n)%oneMiB != 0 || m["published_eof"] != m["bytes"] {
		t.Errorf("JSON: %s", r.stdout)
	}
	if code == 3 && n == 0 || code == 1 && n != 0 {
		t.Errorf("exit %d with bytes %v", code, n)
	}
	for i := int(uint64(n) / oneMiB); i < 64; i++ {
		absent(t, b, objName(dst, i))
	}
	t.Logf("interrupted after %v bytes, exit %d", n, code)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
