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

	// The first line copies, the second is invalid: exit 3, not 2.
	batch := t.TempDir() + "/batch"
	writeFile(t, batch, "rados:radoscp-a/"+src+" rados:radoscp-b/"+dst+" 2M\nrados:radoscp-a/"+src+" rados:radoscp-b/"+test.UniqueName(t)+"\n")
	r := runCmd(t, nil, "cp", "-c", conf, "--no-progress", "--object-size", "1M", "--batch", batch)
	if r.code != 3 || !strings.Contains(r.stderr, "after 1 completed copy") || !strings.Contains(r.stderr, "line 2") {
		t.Fatalf("batch: exit %d, want 3\n%s", r.code, r.stderr)
	}
	assertObjects(t, b, dst, data)
}
