package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// targetState is what a reader that is not radoscp (ceph-fuse, find,
// getfattr, md5sum, the ceph CLI) sees of the target subvolume tgt (its
// name) at fuse path root: every entry's inode, links, mode, owner,
// size, times and link target, every xattr, every file's data, and the
// subvolume's snapshots. A directory's size is left out: ceph-fuse
// gives its rbytes, which the MDS propagates up the tree lazily.
func targetState(t *testing.T, root, tgt string) string {
	t.Helper()
	return test.Run(t, "find", root, "-type", "d", "-printf", "%p %y %i %n %m %U:%G %T@ %C@\n") +
		test.Run(t, "find", root, "!", "-type", "d", "-printf", "%p %y %i %n %m %U:%G %s %T@ %C@ %l\n") +
		test.Run(t, "getfattr", "-R", "-h", "-d", "-m", "-", "--absolute-names", root) +
		test.Run(t, "sh", "-c", "find "+root+" -type f -exec md5sum {} + | sort") +
		test.Ceph(t, "fs", "subvolume", "snapshot", "ls", "cephfs", tgt)
}

// refusedSync runs subvolume sync of subvolume src into tgt (fuse path
// root), with --dry-run and without, and fails t unless each exits 2
// with an error naming tgt, saying it is not src's mirror and how to
// proceed, and leaves tgt's tree and snapshots as they were.
func refusedSync(t *testing.T, conf, src, tgt, root, why string) {
	t.Helper()
	before := targetState(t, root, tgt)
	for _, dry := range []bool{true, false} {
		args := []string{"subvolume", "sync", "-c", conf, "--no-progress", "cephfs", src, tgt}
		if dry {
			args = append(args, "--dry-run")
		}
		r := runCmd(t, nil, args...)
		for _, want := range []string{"target subvolume " + tgt + " ", "is not a mirror of subvolume " + src + ":", why, "nothing was written", "--adopt-target"} {
			if r.code != 2 || !strings.Contains(r.stderr, want) {
				t.Fatalf("sync %s into %s (dry run %v): exit %d, stderr %q; want 2 and %q", src, tgt, dry, r.code, r.stderr, want)
			}
		}
		if after := targetState(t, root, tgt); after != before {
			t.Fatalf("the refused sync (dry run %v) changed %s:\n%s\nwas\n%s", dry, tgt, after, before)
		}
	}
}

// subvolume sync and an existing TARGET, normal and slow client. A
// TARGET that is not SUBVOL's mirror (a subvolume with files of its
// own; the mirror of another subvolume) is refused with exit code 2,
// with --dry-run too, its tree, xattrs, data and snapshots as they were
// (find, getfattr, md5sum through ceph-fuse). A first sync killed
// mid-copy leaves a TARGET its rerun continues into and completes; the
// next nightly run is incremental. An empty existing TARGET is adopted.
// A mirror synced by a radoscp that wrote no mark is known by its
// record of the last complete sync. --adopt-target takes a refused
// TARGET, which then mirrors SUBVOL; later runs need no flag.
func TestE2ESubvolumeSyncTarget(t *testing.T) {
	fuse := test.FuseMountACL(t)
	for _, c := range confs(t, test.FS(t)) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each client with subvolumes of its own
			name := "svt" + test.UniqueName(t)[len(test.UniqueName(t))-8:]
			src := syncSubvolume(t, c.conf, fuse, name)
			snapPath := func(snap string) string { return filepath.Dir(src) + "/.snap/" + snap + "/" + filepath.Base(src) }
			subvolume := func(sv string) string {
				t.Helper()
				return fuse + strings.TrimSpace(test.Ceph(t, "fs", "subvolume", "getpath", "cephfs", sv))
			}
			sync := func(t *testing.T, tgt string, extra ...string) map[string]any {
				t.Helper()
				args := append([]string{"subvolume", "sync", "-c", c.conf, "--no-progress", "--json", "--settle", "0", "--clock-skew", "0"}, extra...)
				r := runCmd(t, nil, append(args, "cephfs", name, tgt)...)
				lines := jsonLines(t, r)
				sum := lines[len(lines)-1]
				if r.code != 0 || sum["snapshotted"] != true {
					t.Fatalf("sync into %s: exit %d, summary %v\n%s", tgt, r.code, sum, r.stderr)
				}
				return sum
			}
			test.RctimeCaughtUp(t, src, []string{"c/f", "d/x", "big/f1", "u0/s/g"})
			test.Ceph(t, "fs", "subvolume", "snapshot", "create", "cephfs", name, "s1")

			// A production subvolume named by mistake.
			prod := name + "-prod"
			test.Ceph(t, "fs", "subvolume", "create", "cephfs", prod)
			t.Cleanup(func() { removeSubvolumeWithSnapshots(c.conf, prod) })
			prodRoot := subvolume(prod)
			test.Run(t, "sh", "-ec", "cd "+prodRoot+" && echo important > db && mkdir dir && echo x > dir/y && ln -s db link && setfattr -n user.owner -v ops dir")
			test.Ceph(t, "fs", "subvolume", "snapshot", "create", "cephfs", prod, "daily")
			refusedSync(t, c.conf, name, prod, prodRoot, "it is not empty and was not made by a sync of subvolume "+name)

			// A first sync killed mid-copy; its rerun continues.
			mirror := name + "-mirror"
			t.Cleanup(func() { removeSubvolumeWithSnapshots(c.conf, mirror) })
			run := startCmd(t, delayEnv(0.3), "subvolume", "sync", "-c", c.conf, "--no-progress", "--files", "1", "--window", "1", "cephfs", name, mirror)
			var mirrorRoot string // known once the run has created it
			copied := func(enough int) int {
				if mirrorRoot == "" {
					out, err := exec.Command("ceph", "-c", c.conf, "fs", "subvolume", "getpath", "cephfs", mirror).Output()
					if err != nil {
						return 0
					}
					mirrorRoot = fuse + strings.TrimSpace(string(out))
				}
				n := 0
				for i := 1; i <= 20 && n < enough; i++ {
					if exec.Command("cmp", "-s", fmt.Sprintf("%s/big/f%d", snapPath("s1"), i), fmt.Sprintf("%s/big/f%d", mirrorRoot, i)).Run() == nil {
						n++
					}
				}
				return n
			}
			waitFor(t, run, 2*time.Minute, "a first sync half done", func() bool { return copied(2) >= 2 })
			run.cmd.Process.Signal(syscall.SIGKILL)
			ended := run.wait(t, time.Minute)
			test.EvictClient(t, run.cmd.Process.Pid)
			if n := copied(20); ended.code != -int(syscall.SIGKILL) || n == 20 {
				t.Fatalf("kill: exit %d with %d of 20 files copied; want a kill mid-copy", ended.code, n)
			}
			if sum := sync(t, mirror); sum["created"] != false || sum["adopted"] != false {
				t.Fatalf("rerun of the killed first sync: %v", sum)
			}
			syncedLike(t, snapPath("s1"), mirrorRoot, "s1")

			// The nightly run after a change: incremental, no flag.
			test.Run(t, "sh", "-ec", "cd "+src+" && echo more >> c/f && rm d/x")
			test.RctimeCaughtUp(t, src, []string{"c/f", "d/."})
			test.Ceph(t, "fs", "subvolume", "snapshot", "create", "cephfs", name, "s2")
			if sum := sync(t, mirror); sum["scan"] != "rctime" || sum["deleted"] != float64(1) || sum["adopted"] != false {
				t.Fatalf("nightly sync: %v", sum)
			}
			syncedLike(t, snapPath("s2"), mirrorRoot, "s2")

			// The mirror of one subvolume is refused as another's.
			other := name + "-other"
			test.Ceph(t, "fs", "subvolume", "create", "cephfs", other)
			t.Cleanup(func() { removeSubvolumeWithSnapshots(c.conf, other) })
			test.Run(t, "sh", "-ec", "echo o > "+subvolume(other)+"/o")
			test.Ceph(t, "fs", "subvolume", "snapshot", "create", "cephfs", other, "o1")
			refusedSync(t, c.conf, other, mirror, mirrorRoot, "it is the mirror of subvolume cephfs/_nogroup/"+name)

			// A mirror synced by a radoscp that wrote no mark: known by
			// its record, and marked.
			test.Run(t, "setfattr", "-x", "user.radoscp.mirror", mirrorRoot)
			test.Run(t, "sh", "-ec", "cd "+src+" && echo again >> c/f")
			test.RctimeCaughtUp(t, src, []string{"c/f"})
			test.Ceph(t, "fs", "subvolume", "snapshot", "create", "cephfs", name, "s3")
			if sum := sync(t, mirror); sum["scan"] != "rctime" || sum["adopted"] != false {
				t.Fatalf("sync into a mirror without a mark: %v", sum)
			}
			syncedLike(t, snapPath("s3"), mirrorRoot, "s3")
			if v := test.Run(t, "getfattr", "--only-values", "-n", "user.radoscp.mirror", mirrorRoot); v != "cephfs/_nogroup/"+name {
				t.Fatalf("mark after the sync: %q", v)
			}

			// An empty existing subvolume is adopted.
			empty := name + "-empty"
			test.Ceph(t, "fs", "subvolume", "create", "cephfs", empty)
			t.Cleanup(func() { removeSubvolumeWithSnapshots(c.conf, empty) })
			if sum := sync(t, empty); sum["created"] != false || sum["adopted"] != true {
				t.Fatalf("sync into an empty subvolume: %v", sum)
			}
			syncedLike(t, snapPath("s3"), subvolume(empty), "s3")

			// --adopt-target takes the refused one; the next run needs
			// no flag.
			if sum := sync(t, prod, "--adopt-target"); sum["adopted"] != true || sum["deleted"] != float64(4) {
				t.Fatalf("sync --adopt-target: %v", sum)
			}
			syncedLike(t, snapPath("s3"), prodRoot, "s3")
			test.Run(t, "sh", "-ec", "cd "+src+" && echo last >> c/f")
			test.RctimeCaughtUp(t, src, []string{"c/f"})
			test.Ceph(t, "fs", "subvolume", "snapshot", "create", "cephfs", name, "s4")
			if sum := sync(t, prod); sum["adopted"] != false || sum["scan"] != "rctime" {
				t.Fatalf("sync after --adopt-target: %v", sum)
			}
			syncedLike(t, snapPath("s4"), prodRoot, "s4")
		})
	}
}
