package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// cp -r into a directory under a CephFS quota (set with setfattr through
// ceph-fuse) exits non-zero at the first file the quota refuses, with one
// message naming the quota directory and its quota, what to do about it
// (not a pool quota's set-quota) and --resume; the files placed stay
// within the quota, as ceph-fuse sums them. Without its own check the
// copy, whose copy-froms pass no client, placed the whole tree and
// exited 0.
func TestE2ECephFSDirQuota(t *testing.T) {
	for _, c := range confs(t, test.FS(t)) {
		t.Run(c.name, func(t *testing.T) {
			e := newFSEnv(t)
			fuse := test.FuseMount(t)
			e.m.MakeDir(e.path("src"), 0o755)
			e.m.MakeDir(e.path("q"), 0o755)
			for i := range 5 {
				e.write(t, "src/f"+strconv.Itoa(i), test.RandomData(uint64(i), 5<<20+17))
			}
			test.Run(t, "setfattr", "-n", "ceph.quota.max_bytes", "-v", "12000000", fuse+e.path("q"))
			r := runCmd(t, nil, "cp", "-c", c.conf, "-r", "cephfs:"+e.path("src"), "cephfs:"+e.path("q"))
			if r.code == 0 {
				t.Fatalf("exit 0 copying 26 MB under a quota of 12000000 bytes\nstdout: %s", r.stdout)
			}
			for _, want := range []string{"cephfs:" + e.path("q") + " is over its quota", "ceph.quota.max_bytes=12000000", "EDQUOT", "--resume"} {
				if !strings.Contains(r.stderr, want) {
					t.Fatalf("exit %d, stderr %q; want it to name %q", r.code, r.stderr, want)
				}
			}
			// The refused file's line, then the copy's error.
			if strings.Contains(r.stderr, "set-quota") || strings.Count(r.stderr, "radoscp: ") != 2 {
				t.Fatalf("stderr %q: want two lines, the refused file and the stop, naming the directory's quota, not a pool's", r.stderr)
			}
			bytes := 0
			for _, s := range strings.Fields(test.Run(t, "find", fuse+e.path("q"), "-type", "f", "-printf", "%s\n")) {
				n, _ := strconv.Atoi(s)
				bytes += n
			}
			if bytes > 12000000 {
				t.Fatalf("%d bytes placed under a quota of 12000000", bytes)
			}
			t.Logf("exit %d, %d bytes placed; stderr: %s", r.code, bytes, r.stderr)
		})
	}
}
