package main

import (
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// Mistakes on the command line get one plain line and a suggestion.
func TestE2EUsageMessages(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"cpy"}, `radoscp: unknown command "cpy"; did you mean cp?` + "\n"},
		{[]string{"cp", "--windw", "3", "a", "b"}, "radoscp: unknown flag --windw; did you mean --window?\n"},
		{[]string{"cp", "-Z", "a", "b"}, "radoscp: unknown flag -Z; radoscp cp --help lists the flags\n"},
		{[]string{"cp", "a"}, "radoscp: cp takes SRC and DST, got 1 argument\n"},
		{[]string{"verify", "a", "b", "c"}, "radoscp: verify takes SRC and DST, got 3 arguments\n"},
		{[]string{"migrate"}, "radoscp: migrate takes one cephfs:/PATH, got 0 arguments\n"},
		{[]string{"subvolume", "clone", "v"}, "radoscp: subvolume clone takes VOL SUBVOL SNAP TARGET, got 1 argument\n"},
	} {
		r := runCmd(t, nil, c.args...)
		if r.code != 2 || r.stderr != c.want {
			t.Errorf("%v: exit %d, stderr %q; want 2, %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// A key that cannot be found names the entity and the keyring looked in;
// a keyring that does not exist is invalid input, as a missing -c is.
func TestE2EKeyringMessages(t *testing.T) {
	conf := test.Conf(t)
	missing := t.TempDir() + "/none.keyring"
	r := runCmd(t, nil, "cp", "-c", conf, "--keyring", missing, "--length", "1M", "rados:radoscp-a/x", "rados:radoscp-b/y")
	if r.code != 2 || !strings.Contains(r.stderr, "as client.admin with --keyring "+missing+" (missing)") {
		t.Errorf("--keyring missing: exit %d: %s", r.code, r.stderr)
	}
	r = runCmd(t, nil, "cp", "-c", conf, "--id", "nobody", "--length", "1M", "rados:radoscp-a/x", "rados:radoscp-b/y")
	if r.code != 2 || !regexp.MustCompile(`as client\.nobody with keyring \S+ceph\.client\.nobody\.keyring \(missing\)`).MatchString(r.stderr) {
		t.Errorf("--id nobody: exit %d: %s", r.code, r.stderr)
	}
}

var continueRE = regexp.MustCompile(`continue with: radoscp (cp .*)\n`)

// interruptOnce interrupts a copy once it has published a checkpoint and
// returns its result and the command it says continues it.
func interruptOnce(t *testing.T, args ...string) (result, []string) {
	t.Helper()
	run := startCmd(t, nil, args...)
	waitFor(t, run, 2*time.Minute, "a checkpoint", func() bool { return strings.Contains(run.log.String(), "msg=checkpoint") })
	run.cmd.Process.Signal(syscall.SIGINT)
	r := run.wait(t, 2*time.Minute)
	if r.code != 3 || regexp.MustCompile(`context canceled|window: stopped`).MatchString(r.stderr) {
		t.Fatalf("exit %d, want 3 without Go internals\n%s", r.code, r.stderr)
	}
	m := continueRE.FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no command to continue with:\n%s", r.stderr)
	}
	return r, strings.Fields(m[1])
}

// An interrupted copy says the command that continues it, and that
// command finishes the copy: --resume for a striped destination, the
// offsets and --dst-size for a raw object set. Window 1, so that the
// copy lasts well past its first checkpoint (at window 2 the first one,
// which waits for the early objects' re-check, once came with only the
// last two copies left, and the interrupted copy finished: exit 0).
func TestE2EInterruptedSaysHowToContinue(t *testing.T) {
	conf := test.Conf(t)
	slow := test.SlowConf(t, 1.0)
	t.Run("striper", func(t *testing.T) {
		src, data := makeStriperSource(t, conf, "radoscp-a", 24<<20)
		dst := test.UniqueName(t)
		t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
		_, cont := interruptOnce(t, "cp", "-c", slow, "--window", "1", "--no-progress", "--log-level", "debug",
			"striper:radoscp-a/"+src, "striper:radoscp-b/"+dst)
		if want := []string{"cp", "--resume", "striper:radoscp-a/" + src, "striper:radoscp-b/" + dst}; strings.Join(cont, " ") != strings.Join(want, " ") {
			t.Fatalf("continue with %v, want %v", cont, want)
		}
		if r := runCmd(t, nil, append([]string{"cp", "-c", conf, "--no-progress"}, cont[1:]...)...); r.code != 0 {
			t.Fatalf("continuing: exit %d\n%s", r.code, r.stderr)
		}
		size, got := striperRead(t, conf, "radoscp-b", dst)
		if size != uint64(len(data)) {
			t.Fatalf("%d bytes, want %d", size, len(data))
		}
		test.Equal(t, "the continued copy", got, data)
	})
	t.Run("rados", func(t *testing.T) {
		_, src, dst, _, b, data := copySetup(t, 24)
		_, cont := interruptOnce(t, "cp", "-c", slow, "--window", "1", "--object-size", "1M", "--length", "24M", "--no-progress",
			"--log-level", "debug", "rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
		if !regexp.MustCompile(`^cp --object-size 1048576 --src-offset \d+ --dst-offset \d+ --dst-size \d+ --length \d+ rados:`).MatchString(strings.Join(cont, " ")) {
			t.Fatalf("continue with %v", cont)
		}
		if r := runCmd(t, nil, append([]string{"cp", "-c", conf, "--no-progress"}, cont[1:]...)...); r.code != 0 {
			t.Fatalf("continuing: exit %d\n%s", r.code, r.stderr)
		}
		assertObjects(t, b, dst, data)
	})
}

// --progress auto looks at stderr: with 2> a file there are no frames.
func TestE2EProgressAutoLooksAtStderr(t *testing.T) {
	conf, src, dst, _, _, _ := copySetup(t, 2)
	r := runCmd(t, nil, "cp", "-c", conf, "--object-size", "1M", "--length", "2M", "rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
	if r.code != 0 || strings.Contains(r.stderr, "\r") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// --version names the librados loaded and the release API the binary was
// built with (test.MainWithBinary builds it with this test's tag, which
// TestCephAPINamesTheTag holds cephAPI to); man writes a page per command.
func TestE2EVersionAndMan(t *testing.T) {
	r := runCmd(t, nil, "--version")
	if r.code != 0 || !regexp.MustCompile(`^radoscp \S+ \(librados ABI \d+\.\d+\.\d+ loaded; built with the `+regexp.QuoteMeta(cephAPI)+` API\)`).MatchString(r.stdout) {
		t.Fatalf("--version: exit %d: %q %q", r.code, r.stdout, r.stderr)
	}
	// The test's build (test.MainWithBinary) is of this checkout: the
	// version names its commit, not "(devel)".
	head := strings.TrimSpace(test.Run(t, "git", "rev-parse", "HEAD"))
	if !strings.Contains(r.stdout, head[:12]) {
		t.Errorf("--version %q does not name the commit built, %s", r.stdout, head[:12])
	}
	dir := t.TempDir()
	if r := runCmd(t, nil, "man", dir); r.code != 0 {
		t.Fatalf("man: exit %d: %s", r.code, r.stderr)
	}
	page := test.Run(t, "cat", dir+"/radoscp-cp.1")
	if !strings.Contains(page, `\fB--window\fP`) || !strings.Contains(page, ".TH \"RADOSCP\" \"1\"") {
		t.Fatalf("radoscp-cp.1 lacks --window or its header:\n%.400s", page)
	}
}
