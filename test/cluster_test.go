package test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// fakeTB records what Conf and friends do to a test that the real one
// would end (Skip, Fatal). Calling anything else panics on the nil TB.
type fakeTB struct {
	testing.TB
	real            *testing.T // the test whose name and cleanups it has
	skipped, failed string
}

func (f *fakeTB) Name() string                      { return f.real.Name() }
func (f *fakeTB) Cleanup(fn func())                 { f.real.Cleanup(fn) }
func (f *fakeTB) Helper()                           {}
func (f *fakeTB) Skip(args ...any)                  { f.skipped = fmt.Sprint(args...) }
func (f *fakeTB) Fatal(args ...any)                 { f.failed = fmt.Sprint(args...) }
func (f *fakeTB) Fatalf(format string, args ...any) { f.failed = fmt.Sprintf(format, args...) }

// Runs without a cluster: the skip-or-fail rule itself.
func TestConfSkipsOrFails(t *testing.T) {
	readable := filepath.Join(t.TempDir(), "ceph.conf")
	if err := os.WriteFile(readable, []byte("[global]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name                  string
		conf, cephfs, require string
		wantConf, wantFS      string
		confEnds, fsEnds      string // "", "skip" or "fail"
	}{
		{name: "unset", confEnds: "skip", fsEnds: "skip"},
		{name: "unset required", require: "1", confEnds: "fail", fsEnds: "fail"},
		{name: "required false", require: "false", confEnds: "skip", fsEnds: "skip"},
		{name: "missing file", conf: "/nonexistent/ceph.conf", confEnds: "skip", fsEnds: "skip"},
		{name: "missing file required", conf: "/nonexistent/ceph.conf", require: "1", confEnds: "fail", fsEnds: "fail"},
		{name: "no cephfs", conf: readable, wantConf: readable, fsEnds: "skip"},
		{name: "no cephfs required", conf: readable, require: "1", wantConf: readable, fsEnds: "fail"},
		{name: "cephfs", conf: readable, cephfs: "1", wantConf: readable, wantFS: readable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvConf, tc.conf)
			t.Setenv(EnvCephFS, tc.cephfs)
			t.Setenv(EnvRequire, tc.require)
			for _, c := range []struct {
				fn         func(testing.TB) string
				want, ends string
			}{{Conf, tc.wantConf, tc.confEnds}, {FS, tc.wantFS, tc.fsEnds}} {
				f := &fakeTB{real: t}
				got := c.fn(f)
				ends := ""
				switch {
				case f.failed != "" && f.skipped != "":
					t.Fatalf("both failed (%s) and skipped (%s)", f.failed, f.skipped)
				case f.failed != "":
					ends = "fail"
				case f.skipped != "":
					ends = "skip"
				}
				if got != c.want || ends != c.ends {
					t.Errorf("got %q and %q (%s%s), want %q and %q", got, ends, f.failed, f.skipped, c.want, c.ends)
				}
			}
		})
	}
}

func TestUniqueName(t *testing.T) {
	valid := regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	seen := map[string]bool{}
	for range 100 {
		n := UniqueName(t)
		if !valid.MatchString(n) || !strings.HasPrefix(n, "TestUniqueName-") {
			t.Fatalf("UniqueName gave %q", n)
		}
		if seen[n] {
			t.Fatalf("UniqueName gave %q twice", n)
		}
		seen[n] = true
	}
	t.Run("sub test/with odd:chars and a very long name that goes on and on", func(t *testing.T) {
		n := UniqueName(t)
		if !valid.MatchString(n) || len(n) > 60 {
			t.Fatalf("UniqueName gave %q", n)
		}
	})
}

// radosCLI runs the rados CLI against the test cluster (as client.admin unless
// args say otherwise) and returns its combined output.
func radosCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cephTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "rados", append([]string{"-c", Conf(t)}, args...)...).CombinedOutput()
	return string(out), err
}

// putObject writes a small object as client.admin and removes it when t ends.
func putObject(t *testing.T, pool, oid string) {
	t.Helper()
	in := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(in, []byte("payload"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := radosCLI(t, "-p", pool, "put", oid, in); err != nil {
		t.Fatalf("rados put %s: %v: %s", oid, err, out)
	}
	t.Cleanup(func() { _, _ = radosCLI(t, "-p", pool, "rm", oid) })
}

func TestCeph(t *testing.T) {
	Conf(t)
	pools := strings.Fields(Ceph(t, "osd", "pool", "ls"))
	for _, want := range []string{"radoscp-a", "radoscp-b"} {
		if !slices.Contains(pools, want) {
			t.Errorf("pool %s missing: %q", want, pools)
		}
	}
	var stat struct {
		NumOSDs   int `json:"num_osds"`
		NumUpOSDs int `json:"num_up_osds"`
		NumInOSDs int `json:"num_in_osds"`
	}
	out := Ceph(t, "osd", "stat", "-f", "json")
	if err := json.Unmarshal([]byte(out), &stat); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if stat.NumOSDs != 3 || stat.NumUpOSDs != 3 || stat.NumInOSDs != 3 {
		t.Errorf("osd stat: %s", out)
	}

	f := &fakeTB{real: t}
	Ceph(f, "no-such-command")
	if !strings.Contains(f.failed, "no-such-command") || !strings.Contains(f.failed, "EINVAL") {
		t.Errorf("a failing command failed the test with %q, want the command and its stderr", f.failed)
	}
}

func TestClient(t *testing.T) {
	Conf(t)
	name := UniqueName(t)
	putObject(t, "radoscp-a", name+".admin")
	putAs := func(t *testing.T, keyring, oid string) (string, error) {
		in := filepath.Join(t.TempDir(), "in")
		if err := os.WriteFile(in, []byte("payload"), 0o644); err != nil {
			t.Fatal(err)
		}
		return radosCLI(t, "--id", name, "--keyring", keyring, "-p", "radoscp-a", "put", oid, in)
	}

	t.Run("object prefix", func(t *testing.T) {
		keyring := Client(t, name, "mon", "allow r", "osd", "allow rw pool=radoscp-a object_prefix "+name+".foo")
		if out, err := putAs(t, keyring, name+".foo1"); err != nil {
			t.Fatalf("put inside the granted prefix: %v: %s", err, out)
		}
		t.Cleanup(func() { _, _ = radosCLI(t, "-p", "radoscp-a", "rm", name+".foo1") })
		out, err := putAs(t, keyring, name+".bar1")
		if err == nil || !strings.Contains(out, "Operation not permitted") {
			t.Fatalf("put outside the granted prefix: %v: %s, want EPERM", err, out)
		}

		// Asking again with other caps updates them.
		keyring = Client(t, name, "mon", "allow r", "osd", "allow rw pool=radoscp-a object_prefix "+name+".bar")
		if out, err := putAs(t, keyring, name+".bar1"); err != nil {
			t.Fatalf("put after the caps changed: %v: %s", err, out)
		}
		t.Cleanup(func() { _, _ = radosCLI(t, "-p", "radoscp-a", "rm", name+".bar1") })
	})
	if _, err := ceph(Conf(t), "auth", "get", "client."+name); err == nil {
		t.Errorf("client.%s still exists after its test ended", name)
	}
}

func TestInjectCopyFromError(t *testing.T) {
	Conf(t)
	name := UniqueName(t)
	putObject(t, "radoscp-a", name+".src")
	// rados cp copies with copy-from.
	cp := func(t *testing.T) (string, error) {
		t.Cleanup(func() { _, _ = radosCLI(t, "-p", "radoscp-a", "rm", name+".dst") })
		return radosCLI(t, "-p", "radoscp-a", "cp", name+".src", name+".dst")
	}

	t.Run("on", func(t *testing.T) {
		InjectCopyFromError(t, true)
		out, err := cp(t)
		if err == nil || !strings.Contains(out, "Input/output error") {
			t.Fatalf("copy-from with the error injected: %v: %s, want EIO", err, out)
		}
		if out, err := radosCLI(t, "-p", "radoscp-a", "stat", name+".dst"); err == nil {
			t.Fatalf("a failed copy-from left a destination: %s", out)
		}
	})
	// Turned off when the subtest ended.
	if out := Ceph(t, "tell", "osd.0", "config", "get", "osd_debug_inject_copyfrom_error"); !strings.Contains(out, "false") {
		t.Errorf("still injected after the test: %s", out)
	}
	if out, err := cp(t); err != nil {
		t.Fatalf("copy-from after injection ended: %v: %s", err, out)
	}
}

func TestFS(t *testing.T) {
	FS(t)
	var fss []struct {
		Name         string   `json:"name"`
		MetadataPool string   `json:"metadata_pool"`
		DataPools    []string `json:"data_pools"`
	}
	out := Ceph(t, "fs", "ls", "-f", "json")
	if err := json.Unmarshal([]byte(out), &fss); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(fss) != 1 || fss[0].Name != "cephfs" || fss[0].MetadataPool != "cephfs_metadata" ||
		!slices.Equal(fss[0].DataPools, []string{"cephfs_data", "cephfs_data2", "cephfs-ec"}) {
		t.Errorf("fs ls: %s", out)
	}
	// The EC pools take overwrites (memstore needs the mon's debug option).
	for _, pool := range []string{"radoscp-ec", "cephfs-ec"} {
		if out := Ceph(t, "osd", "pool", "get", pool, "allow_ec_overwrites"); strings.TrimSpace(out) != "allow_ec_overwrites: true" {
			t.Errorf("%s: %s", pool, out)
		}
	}
	if out := Ceph(t, "mds", "stat"); !strings.Contains(out, "up:active") {
		t.Errorf("no active MDS: %s", out)
	}
}
