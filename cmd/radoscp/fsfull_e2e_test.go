package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// A tree copy into a CephFS data pool over its quota, normal and slow
// client: the copy stops at the first file the pool refuses, with one
// error line for it (not one per file), and its message names the pool's
// quota (not a full cluster) and --resume. Nothing is left in the
// target (ls through ceph-fuse).
func TestE2ECephFSPoolOverQuotaStopsTree(t *testing.T) {
	e := newSlowEnv(t, 0.5)
	conf := test.Conf(t)
	pool := test.UniqueName(t)
	test.Ceph(t, "osd", "pool", "create", pool, "8", "8")
	test.Ceph(t, "fs", "add_data_pool", "cephfs", pool)
	t.Cleanup(func() {
		test.Ceph(t, "osd", "pool", "set-quota", pool, "max_bytes", "0")
		test.Ceph(t, "fs", "rm_data_pool", "cephfs", pool)
		test.Ceph(t, "osd", "pool", "delete", pool, pool, "--yes-i-really-really-mean-it")
	})
	e.m.MakeDir(e.path("src"), 0o755)
	for i := range 16 {
		e.write(t, fmt.Sprintf("src/small%02d", i), test.RandomData(uint64(100+i), 64<<10))
	}
	e.write(t, "src/big", test.RandomData(99, 9<<20))
	test.Ceph(t, "osd", "pool", "set-quota", pool, "max_bytes", "1")
	writeObjects(t, test.OpenPool(t, conf, pool), "filler", 1, oneMiB)
	waitFor(t, nil, 2*time.Minute, "the quota flag in the OSD map", func() bool { return overQuota(t, pool) })
	for _, c := range e.clients() {
		t.Run(c.name, func(t *testing.T) {
			dst := "dst-" + c.name
			e.m.MakeDir(e.path(dst), 0o755)
			if err := e.m.SetXattr(e.path(dst), "ceph.dir.layout.pool", []byte(pool), 0); err != nil {
				t.Fatal(err)
			}
			r := startCmd(t, nil, "cp", "-c", c.conf, "-r", "--no-progress", "cephfs:"+e.path("src")+"/", "cephfs:"+e.path(dst)).wait(t, 2*time.Minute)
			perPath := strings.Count(r.stderr, "radoscp: "+e.path("src/"))
			last := strings.TrimSpace(r.stderr)
			last = last[strings.LastIndex(last, "\n")+1:]
			if r.code != 1 || perPath != 1 || !strings.Contains(last, "stopped at the first file the data pool refused") ||
				!strings.Contains(last, "data pool "+pool+" is over its quota") || !strings.Contains(last, "ceph osd pool set-quota") ||
				!strings.Contains(last, "--resume") || strings.Contains(last, "cluster is full") {
				t.Fatalf("exit %d, %d per-path error lines\nstdout: %s\nstderr: %s\nwant exit 1, one path's error, a last line naming pool %s's quota and --resume", r.code, perPath, r.stdout, r.stderr, pool)
			}
			if names, err := os.ReadDir(e.local(dst)); err != nil || len(names) != 0 {
				t.Fatalf("%s after the refused copy: %v (%v); want it empty", dst, names, err)
			}
		})
	}
}
