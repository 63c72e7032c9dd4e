package main

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// A tree of small files (each within object 0, so copied with no records,
// up to 8 of them at once at --files 1) and one of two objects, OSD
// replies slow, interrupted part-way, then rerun with and without
// --resume: the tree is exact through ceph-fuse (diff -r, rsync
// --checksum), and no staging file is left.
func TestE2ESlowCephFSSmallFiles(t *testing.T) {
	e := newSlowEnv(t, 0.3)
	for _, d := range []string{"src", "src/a", "src/a/b", "src/c"} {
		if err := e.m.MakeDir(e.path(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 60 {
		dir := []string{"src", "src/a", "src/a/b", "src/c"}[i%4]
		e.write(t, fmt.Sprintf("%s/f%02d", dir, i), test.RandomData(uint64(60+i), 1+i*1117))
	}
	e.write(t, "src/c/two", test.RandomData(59, 4<<20+3))
	for _, resume := range []bool{true, false} {
		dst := fmt.Sprintf("dst-resume-%v", resume)
		run := startCmd(t, nil, "cp", "-c", e.slow, "-r", "--files", "1", "--json", "--no-progress",
			"cephfs:"+e.path("src"), "cephfs:"+e.path(dst))
		// Copied into the new target's staging tree (see fscopy/freshtree.go).
		waitFor(t, run, time.Minute, "5 files copied", func() bool { return countCopied(e.local(".radoscp."+dst)) >= 5 })
		run.cmd.Process.Signal(syscall.SIGINT)
		r := run.wait(t, hangGuard)
		if got := strings.Count(r.stdout, `"outcome":"copied"`); r.code == 0 || got >= 61 {
			t.Fatalf("the interrupt did not land mid-tree: exit %d, %d files copied", r.code, got)
		}
		args := []string{"cp", "-c", e.slow, "-r", "--files", "1", "--no-progress", "cephfs:" + e.path("src"), "cephfs:" + e.path(dst)}
		if resume {
			args = append(args, "--resume")
		}
		if r := runCmd(t, nil, args...); r.code != 0 {
			t.Fatalf("rerun (resume %v): exit %d\n%s", resume, r.code, r.stderr)
		}
		e.same(t, "src", dst)
		if n := countStaging(e.local(dst)); n > 0 {
			t.Errorf("%d staging files left behind in %s", n, dst)
		}
	}
}

// countCopied counts the regular files below dir, staging files aside, as
// ceph-fuse lists them.
func countCopied(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.HasPrefix(d.Name(), ".radoscp.") {
			n++
		}
		return nil
	})
	return n
}

// countStaging counts the staging files below dir, as ceph-fuse lists them.
func countStaging(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".radoscp.") {
			n++
		}
		return nil
	})
	return n
}
