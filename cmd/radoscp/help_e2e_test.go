package main

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/radoscp/radoscp/test"
)

// Every line of every command's --help fits 80 columns, and migrate,
// verify and subvolume clone list only flags that apply to them (and
// refuse the others on their command line).
func TestE2EHelpFitsAndListsOwnFlags(t *testing.T) {
	for _, c := range [][]string{{}, {"cp"}, {"migrate"}, {"verify"}, {"subvolume"}, {"subvolume", "clone"},
		{"config"}, {"report"}, {"man"}, {"completion"}} {
		r := runCmd(t, nil, append(c, "--help")...)
		if r.code != 0 {
			t.Fatalf("%q --help: exit %d: %s", c, r.code, r.stderr)
		}
		for _, l := range strings.Split(r.stdout, "\n") {
			if utf8.RuneCountInString(l) > 80 {
				t.Errorf("%q --help: a line of %d columns: %q", c, utf8.RuneCountInString(l), l)
			}
		}
	}
	for _, c := range []struct {
		cmd  []string
		args []string
		not  []string
	}{
		{[]string{"migrate"}, []string{"--pool", "p", "cephfs:/a"}, []string{"--allow-missing"}},
		{[]string{"subvolume", "clone"}, []string{"v", "s", "n", "t"}, []string{"--allow-missing"}},
		{[]string{"verify"}, []string{"striper:p/a", "striper:p/b"}, []string{"--allow-missing", "--offload-only", "--pin-source"}},
	} {
		help := runCmd(t, nil, append(c.cmd, "--help")...).stdout
		for _, f := range c.not {
			if strings.Contains(help, f) {
				t.Errorf("%q --help lists %s, which does nothing there", c.cmd, f)
			}
			r := runCmd(t, nil, append(append(append([]string{}, c.cmd...), f), c.args...)...)
			if want := f + " does not apply to radoscp " + strings.Join(c.cmd, " "); r.code != 2 || !strings.Contains(r.stderr, want) {
				t.Errorf("%q %s: exit %d, want 2 with %q: %s", c.cmd, f, r.code, want, r.stderr)
			}
		}
	}
}

// A flag given a value of the wrong kind is named with the value and
// what it expects, not strconv's words; man without its DIR says so.
func TestE2EFlagValueMessages(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"cp", "--max-ops", "-1", "a", "b"}, "radoscp: --max-ops: -1: expected a whole number >= 0\n"},
		{[]string{"cp", "--files", "many", "a", "b"}, "radoscp: --files: many: expected a whole number\n"},
		{[]string{"cp", "--no-clobber=maybe", "a", "b"}, "radoscp: --no-clobber: maybe: expected true or false\n"},
		{[]string{"man"}, "radoscp: man takes DIR, the directory to write the pages into, got 0 arguments\n"},
	} {
		r := runCmd(t, nil, c.args...)
		if r.code != 2 || r.stderr != c.want {
			t.Errorf("%q: exit %d, stderr %q; want 2, %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// A refused CephFS copy prints its error, not a summary of zeros before
// it, and with --json one summary-shaped line carrying exit_code; verify
// --json prints only lines of verify's schema (one line, also for a
// failure before any comparison and for differences); one object is
// "1 object".
func TestE2ERefusalsAndVerifyJSON(t *testing.T) {
	if test.FS(t) == "" {
		t.Skip("no CephFS")
	}
	for _, c := range []struct{ name, conf string }{{"normal", test.Conf(t)}, {"slow", test.SlowConf(t, 0.5)}} {
		t.Run(c.name, func(t *testing.T) { refusalsAndVerifyJSON(t, c.conf) })
	}
}

func refusalsAndVerifyJSON(t *testing.T, conf string) {
	missing := "cephfs:/" + test.UniqueName(t)
	r := runCmd(t, nil, "cp", "-c", conf, "-r", "--no-progress", missing, missing+"-copy")
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "ENOENT") {
		t.Errorf("refused tree copy: exit %d, stdout %q (want none), stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runCmd(t, nil, "cp", "-c", conf, "-r", "--json", missing, missing+"-copy")
	if m := parseJSON(t, r); r.code != 2 || m["summary"] != true || m["exit_code"] != 2.0 {
		t.Errorf("refused tree copy --json: exit %d: %s", r.code, r.stdout)
	}

	name := stripedSource(t, conf, 3)
	other := stripedSource(t, conf, 5)
	for _, c := range []struct {
		dst  string
		code int
	}{{"striper:radoscp-a/" + test.UniqueName(t), 2}, {"striper:radoscp-a/" + other, 1}} {
		r := runCmd(t, nil, "verify", "-c", conf, "--json", "striper:radoscp-a/"+name, c.dst)
		m := parseJSON(t, r) // fails on a second line
		if _, ok := m["same"]; r.code != c.code || !ok || m["same"] != false || m["published_eof"] != nil {
			t.Errorf("verify %s: exit %d (want %d), want one line of verify's schema: %s", c.dst, r.code, c.code, r.stdout)
		}
	}
	r = runCmd(t, nil, "verify", "-c", conf, "striper:radoscp-a/"+name, "striper:radoscp-a/"+name)
	if r.code != 0 || !strings.Contains(r.stdout, "(1 object, 3 bytes compared") {
		t.Errorf("verify of one object: exit %d: %s", r.code, r.stdout)
	}
	src, dst := test.UniqueName(t), test.UniqueName(t)
	writeObjects(t, test.OpenPool(t, conf, "radoscp-a"), src, 1, oneMiB)
	cleanupObjects(t, test.OpenPool(t, conf, "radoscp-b"), dst, 1)
	r = runCmd(t, nil, "cp", "-c", conf, "--no-progress", "--object-size", "1M", "--length", "1M", "rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
	if r.code != 0 || !strings.Contains(r.stdout, "(1 object by copy-from)") {
		t.Errorf("copy of one object: exit %d: %s", r.code, r.stdout)
	}
}
