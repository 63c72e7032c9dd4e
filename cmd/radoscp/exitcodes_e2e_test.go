package main

import (
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// Exit codes of runs whose surroundings are wrong: exit 2 before anything
// is written; a batch that stops after completed copies exits 3.
func TestE2EExitCodes(t *testing.T) {
	conf, src, dst, _, b, data := copySetup(t, 2)
	raw := func(d string) []string {
		return []string{"--object-size", "1M", "--length", "2M", "rados:radoscp-a/" + src, "rados:radoscp-b/" + d}
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"missing -c file", append([]string{"-c", t.TempDir() + "/none.conf"}, raw(dst)...), "-c "},
		{"missing file system", []string{"-c", conf, "-r", "cephfs:nofs:/a", "cephfs:nofs:/b"}, `file system "nofs" does not exist`},
		{"textfile directory missing", append([]string{"-c", conf, "--metrics-textfile", t.TempDir() + "/no/dir/m.prom"}, raw(dst)...), "--metrics-textfile"},
	} {
		r := runCmd(t, nil, append([]string{"cp", "--no-progress"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, want 2 with %q\n%s", c.name, r.code, c.want, r.stderr)
		}
	}
	absent(t, b, objName(dst, 0)) // nothing was written

	// The first two lines copy, the third fails: its source is the
	// second's destination, to which the second copied nothing (so the
	// checks before the first copy take it for written), and it is
	// missing: exit 3, not 1. A dry run of the same batch copies nothing:
	// it exits as its failing line does, not 3. (A line refused by the
	// checks before the first copy exits 2 or 1 with nothing copied:
	// TestE2EBatchRefusesBeforeCopying.)
	batch := t.TempDir() + "/batch"
	empty, other := test.UniqueName(t)+"-empty", test.UniqueName(t)+"-other"
	writeFile(t, batch, "rados:radoscp-a/"+src+" rados:radoscp-b/"+dst+" 2M\n"+
		"rados:radoscp-a/"+src+" rados:radoscp-b/"+empty+" 0\n"+
		"rados:radoscp-b/"+empty+" rados:radoscp-b/"+other+" 2M\n")
	r := runCmd(t, nil, "cp", "-c", conf, "--no-progress", "--object-size", "1M", "--batch", batch, "--dry-run")
	if r.code != 1 || strings.Contains(r.stderr, "completed") || !strings.Contains(r.stderr, "line 3") {
		t.Fatalf("dry run of the batch: exit %d, want 1 and no completed copy\n%s", r.code, r.stderr)
	}
	absent(t, b, objName(dst, 0))
	r = runCmd(t, nil, "cp", "-c", conf, "--no-progress", "--object-size", "1M", "--batch", batch)
	if r.code != 3 || !strings.Contains(r.stderr, "after 2 completed copies") || !strings.Contains(r.stderr, "line 3") {
		t.Fatalf("batch: exit %d, want 3\n%s", r.code, r.stderr)
	}
	assertObjects(t, b, dst, data)
	absent(t, b, objName(empty, 0))
}

// The textfile says how the last run ended, also when it failed before
// any copy, so a failed scheduled job can be alerted on.
func TestE2EJobMetrics(t *testing.T) {
	conf, src, dst, _, _, _ := copySetup(t, 2)
	prom := t.TempDir() + "/radoscp.prom"
	metric := func(name string) string {
		for _, l := range strings.Split(test.Run(t, "cat", prom), "\n") {
			if v, ok := strings.CutPrefix(l, name+" "); ok {
				return v
			}
		}
		return ""
	}
	args := []string{"cp", "-c", conf, "--no-progress", "--metrics-textfile", prom, "--object-size", "1M", "--length", "2M",
		"rados:radoscp-a/" + src, "rados:radoscp-b/" + dst}
	if r := runCmd(t, nil, args...); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if metric("radoscp_job_success") != "1" || metric("radoscp_job_exit_code") != "0" || metric("radoscp_job_copied_bytes") != "2.097152e+06" ||
		metric("radoscp_job_end_timestamp_seconds") == "" || metric("radoscp_job_start_timestamp_seconds") == "" {
		t.Fatalf("after a copy:\n%s", test.Run(t, "cat", prom))
	}
	r := runCmd(t, nil, append([]string{"cp", "--keyring", t.TempDir() + "/none"}, args[1:]...)...)
	if r.code != 2 || metric("radoscp_job_success") != "0" || metric("radoscp_job_exit_code") != "2" || metric("radoscp_job_copied_bytes") != "0" {
		t.Fatalf("after a failed connect (exit %d):\n%s", r.code, test.Run(t, "cat", prom))
	}
}
