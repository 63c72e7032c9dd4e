package main

import (
	"os"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// --resume over the staging file an interrupted copy of a one-object file
// leaves (marked, recording no source), normal and slow client: the copy
// starts over saying the staging file records nothing to resume from,
// not that the source changed (it did not); the copy is exact (cmp
// through ceph-fuse) and the staging file gone.
func TestE2EResumeOneObjectFileSaysWhy(t *testing.T) {
	e := newSlowEnv(t, 0.5)
	data := test.RandomData(95, 100<<10)
	e.write(t, "f", data)
	for _, c := range e.clients() {
		t.Run(c.name, func(t *testing.T) {
			dst := "c-" + c.name
			// What an interrupted one-object copy leaves: a staging file
			// with the staging mark only.
			staging := e.local(".radoscp." + dst)
			if err := os.WriteFile(staging, data[:4096], 0o600); err != nil {
				t.Fatal(err)
			}
			test.Run(t, "setfattr", "-n", "user.radoscp.staging", "-v", dst, staging)
			r := runCmd(t, nil, "cp", "-c", c.conf, "--resume", "--json", "--no-progress", "cephfs:"+e.path("f"), "cephfs:"+e.path(dst))
			if r.code != 0 || strings.Contains(r.stdout, "source changed") || !strings.Contains(r.stdout, "records no source to resume from") {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s\nwant 0, the reason that nothing was recorded, not a changed source", r.code, r.stdout, r.stderr)
			}
			e.same(t, "f", dst)
			if _, err := os.Lstat(staging); !os.IsNotExist(err) {
				t.Fatalf("staging file after the copy: %v", err)
			}
		})
	}
}
