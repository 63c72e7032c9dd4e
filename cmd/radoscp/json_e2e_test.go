package main

import (
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// jsonLine parses r's stdout, which must be exactly one JSON line of
// schema version 1.
func jsonLine(t *testing.T, what string, r result) map[string]any {
	t.Helper()
	if strings.Count(r.stdout, "\n") != 1 {
		t.Fatalf("%s: want one JSON line, got %q (stderr %s)", what, r.stdout, r.stderr)
	}
	m := parseJSON(t, r)
	if m["schema_version"] != float64(1) {
		t.Fatalf("%s: schema_version %v: %s", what, m["schema_version"], r.stdout)
	}
	return m
}

// Every outcome prints its JSON line, failures before any copy included,
// with the errno and the exit code.
func TestE2EJSONOnEveryOutcome(t *testing.T) {
	conf := test.Conf(t)
	src, _ := makeStriperSource(t, conf, "radoscp-a", 2<<20)
	client := test.UniqueName(t)
	readOnly := test.Client(t, client, "mon", "allow r", "osd", "allow r")
	dead := t.TempDir() + "/ceph.conf"
	writeFile(t, dead, "[global]\nmon host = 127.0.0.1:1\nauth client required = none\n")
	for _, c := range []struct {
		name        string
		args        []string
		code, errno int
	}{
		{"EPERM", []string{"-c", conf, "--id", client, "--keyring", readOnly, "striper:radoscp-a/" + src, "striper:radoscp-b/" + test.UniqueName(t)}, 1, 1},
		{"connect timeout", []string{"-c", dead, "--connect-timeout", "2s", "--length", "1M", "rados:radoscp-a/x", "rados:radoscp-b/y"}, 1, 110},
		{"rados: without --length", []string{"-c", conf, "rados:radoscp-a/x", "rados:radoscp-b/y"}, 2, 0},
		{"striper: source missing", []string{"-c", conf, "striper:radoscp-a/" + test.UniqueName(t), "striper:radoscp-b/y"}, 2, 0},
		{"unknown flag", []string{"--windw", "3", "rados:radoscp-a/x", "rados:radoscp-b/y"}, 2, 0},
	} {
		r := runCmd(t, nil, append([]string{"cp", "--json", "--no-progress"}, c.args...)...)
		m := jsonLine(t, c.name, r)
		if r.code != c.code || m["exit_code"] != float64(c.code) || m["errno"] != float64(c.errno) || m["error"] == nil || m["bytes"] != float64(0) {
			t.Errorf("%s: exit %d, JSON %s; want exit %d, errno %d", c.name, r.code, r.stdout, c.code, c.errno)
		}
	}
	r := runCmd(t, nil, "cp", "--json", "-c", conf, "-r", "cephfs:/"+test.UniqueName(t), "cephfs:/y")
	if m := jsonLine(t, "cephfs: source missing", r); m["summary"] != true || m["error"] == nil || r.code != 2 {
		t.Errorf("cephfs: source missing: exit %d, JSON %s", r.code, r.stdout)
	}
}

// "fallback" means data beyond the striped object's metadata object went
// through the client: a copy between striped objects of one layout has
// none (object 0 is always written by the client, which is not counted),
// one between layouts has.
func TestE2EJSONFallbackMeaning(t *testing.T) {
	conf := test.Conf(t)
	src, _ := makeStriperSource(t, conf, "radoscp-a", 3<<20)
	same, other := test.UniqueName(t), test.UniqueName(t)
	t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", same); removeStriper(t, conf, "radoscp-b", other) })
	r := runCmd(t, nil, "cp", "--json", "-c", conf, "--object-size", "1M", "striper:radoscp-a/"+src, "striper:radoscp-b/"+same)
	if m := jsonLine(t, "same layout", r); r.code != 0 || m["fallback"] != false || m["objects"] != float64(2) || m["exit_code"] != nil {
		t.Errorf("same layout: exit %d, JSON %s", r.code, r.stdout)
	}
	r = runCmd(t, nil, "cp", "--json", "-c", conf, "--object-size", "4M", "striper:radoscp-a/"+src, "striper:radoscp-b/"+other)
	if m := jsonLine(t, "other layout", r); r.code != 0 || m["fallback"] != true {
		t.Errorf("other layout: exit %d, JSON %s", r.code, r.stdout)
	}
}
