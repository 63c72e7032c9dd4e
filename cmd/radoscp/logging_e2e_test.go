package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// -v logs at debug level (the checkpoints of a copy slow enough to make
// some), --log-format json makes every log line a JSON object, -q logs
// nothing and draws no progress even with --progress on, and -q with -v
// is refused. Each copy is checked with rados --striper get.
func TestE2EVerboseQuietJSONLog(t *testing.T) {
	conf := test.Conf(t)
	slow := test.SlowConf(t, 0.5)
	src, data := makeStriperSource(t, conf, "radoscp-a", 8*oneMiB)
	cp := func(args ...string) result {
		t.Helper()
		dst := test.UniqueName(t) + strings.ReplaceAll(strings.Join(args, ""), "-", "")
		t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
		r := runCmd(t, nil, append(append([]string{"cp", "-c", slow, "--window", "1"}, args...), "striper:radoscp-a/"+src, "striper:radoscp-b/"+dst)...)
		if r.code == 0 {
			wantStriper(t, conf, dst, data)
		}
		return r
	}
	if r := cp("-v", "--no-progress"); r.code != 0 || !strings.Contains(r.stderr, "level=DEBUG msg=checkpoint") {
		t.Fatalf("-v: exit %d, stderr %q; want checkpoints logged", r.code, r.stderr)
	}
	r := cp("-v", "--log-format", "json", "--no-progress")
	if r.code != 0 {
		t.Fatalf("--log-format json: exit %d: %s", r.code, r.stderr)
	}
	logged := 0
	for _, l := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("--log-format json: stderr line %q is not JSON: %v", l, err)
		}
		if m["level"] == "DEBUG" && m["msg"] == "checkpoint" {
			logged++
		}
	}
	if logged == 0 {
		t.Fatalf("--log-format json: no checkpoint logged: %q", r.stderr)
	}
	if r := cp("-q", "--progress", "on", "--log-level", "debug"); r.code != 0 || r.stderr != "" {
		t.Fatalf("-q: exit %d, stderr %q; want nothing on stderr", r.code, r.stderr)
	}
	if r := cp("-q", "-v"); r.code != 2 || !strings.Contains(r.stderr, "--quiet and --verbose") {
		t.Fatalf("-q -v: exit %d, stderr %q; want 2", r.code, r.stderr)
	}
}
