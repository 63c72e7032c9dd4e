package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// The least cephx caps of each command, as README.md documents them. A
// client with exactly these succeeds; one without write on the
// destination fails with EPERM naming the object, and nothing is left.
// Every cp destination takes radoscp's copy lock (cls lock class).
const (
	capsMon        = "allow r"
	capsLock       = "allow pool radoscp-b class lock"
	capsRawCopy    = "allow r pool=radoscp-a, allow rw pool=radoscp-b, " + capsLock
	capsStriperDst = capsRawCopy
)

func TestE2ELeastPrivilege(t *testing.T) {
	conf, src, dst, _, b, data := copySetup(t, 4)
	striperSrc, striperData := makeStriperSource(t, conf, "radoscp-a", 2*oneMiB+100)
	client := func(osd string) []string {
		name := test.UniqueName(t)
		return []string{"--id", name, "--keyring", test.Client(t, name, "mon", capsMon, "osd", osd)}
	}
	run := func(who []string, args ...string) result {
		t.Helper()
		return runCmd(t, nil, append(append([]string{args[0], "-c", conf, "--no-progress"}, who...), args[1:]...)...)
	}

	t.Run("raw", func(t *testing.T) {
		r := run(client(capsRawCopy), "cp", "--object-size", "1M", "--length", "4M", "rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		assertObjects(t, b, dst, data[:4])
	})
	t.Run("striper", func(t *testing.T) {
		d := test.UniqueName(t)
		t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", d) })
		r := run(client(capsStriperDst), "cp", "--object-size", "1M", "striper:radoscp-a/"+striperSrc, "striper:radoscp-b/"+d)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if size := checkPublishedPrefix(t, conf, "radoscp-b", d, striperData); size != uint64(len(striperData)) {
			t.Errorf("published %d of %d bytes", size, len(striperData))
		}
	})
	t.Run("striper-without-lock-class", func(t *testing.T) {
		d := test.UniqueName(t)
		t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", d) })
		r := run(client("allow r pool=radoscp-a, allow rw pool=radoscp-b"), "cp", "--object-size", "1M", "striper:radoscp-a/"+striperSrc, "striper:radoscp-b/"+d)
		wantEPERM(t, r, "radoscp-b/"+d+".0000000000000000")
		if !strings.Contains(r.stderr, "class lock") {
			t.Errorf("stderr %q does not name the caps needed", r.stderr)
		}
	})
	t.Run("raw-without-write", func(t *testing.T) {
		d := test.UniqueName(t)
		cleanupObjects(t, b, d, 4)
		r := run(client("allow r pool=radoscp-a, allow r pool=radoscp-b"), "cp", "--object-size", "1M", "--length", "4M",
			"rados:radoscp-a/"+src, "rados:radoscp-b/"+d)
		wantEPERM(t, r, "radoscp-b/"+d+".radoscp-lock")
		if objs := listNamed(t, conf, "radoscp-b", d); len(objs) > 0 {
			t.Errorf("objects left in radoscp-b: %q", objs)
		}
	})
	// Measured, and documented in README.md: the OSD does not check the
	// client's caps on a copy-from's source. If Ceph starts to, this
	// subtest fails and the README's warning can go.
	t.Run("copy-from-ignores-source-caps", func(t *testing.T) {
		d := test.UniqueName(t)
		cleanupObjects(t, b, d, 4)
		// --pin-source (the default) stats the source itself, which
		// the caps do check.
		r := run(client("allow rw pool=radoscp-b, "+capsLock), "cp", "--object-size", "1M", "--length", "4M", "--offload-only", "--pin-source=false",
			"rados:radoscp-a/"+src, "rados:radoscp-b/"+d)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		assertObjects(t, b, d, data[:4])
	})
}

func wantEPERM(t *testing.T, r result, object string) {
	t.Helper()
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	msg := strings.TrimRight(r.stderr, "\n")
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "EPERM") || !strings.Contains(msg, object) {
		t.Errorf("stderr %q is not one line naming %s and EPERM", r.stderr, object)
	}
}

// adminKeyring returns the path of the test cluster's client.admin
// keyring and the key in it.
func adminKeyring(t *testing.T, conf string) (string, string) {
	t.Helper()
	path := filepath.Join(filepath.Dir(conf), "ceph.client.admin.keyring")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok && strings.TrimSpace(k) == "key" {
			return path, strings.TrimSpace(v)
		}
	}
	t.Fatalf("no key in %s", path)
	return "", ""
}

func TestE2EKeyringWarning(t *testing.T) {
	conf, src, dst, _, _, _ := copySetup(t, 1)
	admin, _ := adminKeyring(t, conf)
	key, err := os.ReadFile(admin)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode os.FileMode
		warn bool
	}{{0o600, false}, {0o400, false}, {0o640, true}, {0o604, true}} {
		keyring := filepath.Join(t.TempDir(), "keyring")
		if err := os.WriteFile(keyring, key, tc.mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(keyring, tc.mode) // past the umask
		// A batch of two copies connects once and warns once.
		batch := filepath.Join(t.TempDir(), "batch")
		line := "rados:radoscp-a/" + src + " rados:radoscp-b/" + dst + " 1M\n"
		os.WriteFile(batch, []byte(line+line), 0o644)
		r := runCmd(t, nil, "cp", "-c", conf, "-k", keyring, "--object-size", "1M", "--no-progress", "--batch", batch)
		if r.code != 0 {
			t.Fatalf("mode %04o: exit %d: %s", tc.mode, r.code, r.stderr)
		}
		n := strings.Count(r.stderr, "warning: keyring "+keyring+" is readable by group or others")
		if tc.warn && n != 1 || !tc.warn && r.stderr != "" {
			t.Errorf("mode %04o: stderr %q, want the warning %v (once)", tc.mode, r.stderr, tc.warn)
		}
	}
}

// TestE2ENoSecretPrinted runs commands that succeed and fail, with every
// output on (--json, a metrics textfile, Ceph's own debug logging of
// authentication, the monitor client and librados to stderr), and looks
// for the key, and its bytes, in all they printed or wrote.
func TestE2ENoSecretPrinted(t *testing.T) {
	conf, src, dst, _, _, _ := copySetup(t, 2)
	keyring, key := adminKeyring(t, conf)
	debug := []string{"CEPH_ARGS=--log_to_stderr=true --err_to_stderr=true --debug_auth=20 --debug_monc=20 --debug_rados=20 --debug_objecter=10 --debug_ms=1"}
	textfile := filepath.Join(t.TempDir(), "metrics.prom")
	var outputs []string
	for _, args := range [][]string{
		{"cp", "-k", keyring, "--json", "--metrics-textfile", textfile, "--object-size", "1M", "--length", "2M", "rados:radoscp-a/" + src, "rados:radoscp-b/" + dst},
		{"cp", "-k", keyring, "--metrics-textfile", textfile, "--object-size", "1M", "--length", "2M", "rados:radoscp-a/" + src, "rados:nosuchpool-e2e/" + dst},
		{"cp", "-k", keyring, "--json", "--id", "nosuchclient", "--length", "1M", "rados:radoscp-a/" + src, "rados:radoscp-b/" + dst},
		{"config", "-k", keyring},
	} {
		r := runCmd(t, debug, append([]string{args[0], "-c", conf}, args[1:]...)...)
		outputs = append(outputs, r.stdout, r.stderr)
	}
	if m, err := os.ReadFile(textfile); err == nil {
		outputs = append(outputs, string(m))
	} else {
		t.Fatalf("metrics textfile: %v", err)
	}
	if !strings.Contains(outputs[1], "auth") {
		t.Fatalf("the debug log did not reach stderr, so this test proves nothing: %.300s", outputs[1])
	}
	for i, out := range outputs {
		if strings.Contains(out, key) {
			t.Errorf("output %d contains the key", i)
		}
	}
}
