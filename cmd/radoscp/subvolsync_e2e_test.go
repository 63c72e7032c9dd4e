package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// syncSubvolume makes subvolume name with untouched directories u0..u4
// and the directories the test changes; it returns its data path
// through fuse.
func syncSubvolume(t *testing.T, conf, fuse, name string) string {
	t.Helper()
	test.Ceph(t, "fs", "subvolume", "create", "cephfs", name)
	t.Cleanup(func() { removeSubvolumeWithSnapshots(conf, name) })
	root := fuse + strings.TrimSpace(test.Ceph(t, "fs", "subvolume", "getpath", "cephfs", name))
	script := "mkdir c d big && echo c > c/f && echo x > d/x && echo y > d/y && for i in $(seq 1 20); do head -c 1200000 /dev/urandom > big/f$i; done"
	for i := 0; i < 5; i++ {
		script += fmt.Sprintf(" && mkdir -p u%d/s && echo %d > u%d/s/g", i, i, i)
	}
	test.Run(t, "sh", "-ec", "cd "+root+" && "+script)
	return root
}

// removeSubvolumeWithSnapshots removes subvolume name and its snapshots.
func removeSubvolumeWithSnapshots(conf, name string) {
	out, _ := exec.Command("ceph", "-c", conf, "fs", "subvolume", "snapshot", "ls", "cephfs", name, "--format", "json").Output()
	for _, l := range strings.Split(string(out), "\"name\": \"")[1:] {
		snap, _, _ := strings.Cut(l, "\"")
		exec.Command("ceph", "-c", conf, "fs", "subvolume", "snapshot", "rm", "cephfs", name, snap, "--force").Run()
	}
	exec.Command("ceph", "-c", conf, "fs", "subvolume", "rm", "cephfs", name, "--force").Run()
}

// syncedLike checks, through ceph-fuse, that the target subvolume tgt
// (fuse path) holds snapshot snap of the source src (fuse path of its
// data; its snapshot is at the directory above, as version 2 keeps
// them) and has a snapshot of that name holding the same.
func syncedLike(t *testing.T, srcSnap, tgt, snap string) {
	t.Helper()
	for _, dst := range []string{tgt, targetSnap(tgt, snap)} {
		rsyncSame(t, srcSnap, dst)
	}
}

// targetSnap is snapshot snap of the target subvolume tgt (fuse path).
func targetSnap(tgt, snap string) string {
	return filepath.Dir(tgt) + "/.snap/" + snap + "/" + filepath.Base(tgt)
}

// rsyncSame fails t unless rsync -a -H -X -A --checksum --delete finds
// fuse paths src and dst the same (but for the target's record and
// mirror mark).
func rsyncSame(t *testing.T, src, dst string) {
	t.Helper()
	if out := test.Run(t, "rsync", "-a", "-H", "-X", "-A", "-n", "-i", "--checksum", "--delete", "--filter=-x user.radoscp.synced", "--filter=-x user.radoscp.mirror", src+"/", dst+"/"); out != "" {
		t.Fatalf("rsync finds %s and %s differ:\n%s", src, dst, out)
	}
}

// subvolume sync through the binary, normal and slow client: the first
// run creates the target, copies the newest snapshot in full and
// snapshots the target; after changes (a file changed, one removed) and
// a new snapshot the next run skips the unchanged directories by rctime;
// a run with nothing new is up to date; a run killed (SIGKILL) mid-copy
// leaves no record, and its rerun walks the whole tree and completes.
// Every target and its snapshots equal the source's snapshots (rsync
// --checksum --delete through ceph-fuse).
func TestE2ESubvolumeSync(t *testing.T) {
	fuse := test.FuseMountACL(t)
	for _, c := range confs(t, test.FS(t)) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each client with subvolumes of its own
			name := "svs" + test.UniqueName(t)[len(test.UniqueName(t))-8:]
			src := syncSubvolume(t, c.conf, fuse, name)
			target := name + "-mirror"
			t.Cleanup(func() { removeSubvolumeWithSnapshots(c.conf, target) })
			snapPath := func(snap string) string { return filepath.Dir(src) + "/.snap/" + snap + "/" + filepath.Base(src) }
			sync := func(t *testing.T, want string) map[string]any {
				t.Helper()
				r := runCmd(t, nil, "subvolume", "sync", "-c", c.conf, "--no-progress", "--json", "--settle", "0", "--clock-skew", "0", "cephfs", name, target)
				lines := jsonLines(t, r)
				sum := lines[len(lines)-1]
				if r.code != 0 || sum["scan"] != want {
					t.Fatalf("sync: exit %d, summary %v, want scan %q\n%s", r.code, sum, want, r.stderr)
				}
				return sum
			}
			snapshot := func(snap string, touched ...string) {
				test.RctimeCaughtUp(t, src, touched)
				test.Ceph(t, "fs", "subvolume", "snapshot", "create", "cephfs", name, snap)
			}
			snapshot("s1", "c/f", "d/x", "big/f1", "u0/s/g")
			sum := sync(t, "full")
			tgt := fuse + strings.TrimSpace(test.Ceph(t, "fs", "subvolume", "getpath", "cephfs", target))
			if sum["created"] != true || sum["snapshotted"] != true || sum["snapshot"] != "s1" {
				t.Fatalf("first sync: %v", sum)
			}
			syncedLike(t, snapPath("s1"), tgt, "s1")

			test.Run(t, "sh", "-ec", "cd "+src+" && echo more >> c/f && rm d/x")
			snapshot("s2", "c/f", "d/.")
			sum = sync(t, "rctime")
			if sum["pruned"] != float64(6) || sum["deleted"] != float64(1) || sum["files"] != float64(1) { // u0..u4 and big
				t.Fatalf("second sync: %v", sum)
			}
			syncedLike(t, snapPath("s2"), tgt, "s2")
			rsyncSame(t, snapPath("s1"), targetSnap(tgt, "s1")) // history kept
			if r := runCmd(t, nil, "subvolume", "sync", "-c", c.conf, "--no-progress", "cephfs", name, target); r.code != 0 || !strings.Contains(r.stdout, "up to date") {
				t.Fatalf("sync with nothing new: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			// _nogroup, the group in the subvolumes' paths, names no
			// group, which the mgr refuses by that name.
			if r := runCmd(t, nil, "subvolume", "sync", "-c", c.conf, "--no-progress", "--group", "_nogroup", "--target-group", "_nogroup", "cephfs", name, target); r.code != 0 || !strings.Contains(r.stdout, "up to date") {
				t.Fatalf("sync with --group _nogroup: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}

			// Every big file rewritten; the run killed with some of
			// them copied and not all.
			test.Run(t, "sh", "-ec", "cd "+src+" && for i in $(seq 1 20); do head -c 1200000 /dev/urandom > big/f$i; done")
			snapshot("s3", "big/f20")
			run := startCmd(t, delayEnv(0.1), "subvolume", "sync", "-c", c.conf, "--no-progress", "--files", "1", "--window", "1", "--settle", "0", "--clock-skew", "0", "cephfs", name, target)
			same := func() int {
				n := 0
				for i := 1; i <= 20; i++ {
					if exec.Command("cmp", "-s", fmt.Sprintf("%s/big/f%d", snapPath("s3"), i), fmt.Sprintf("%s/big/f%d", tgt, i)).Run() == nil {
						n++
					}
				}
				return n
			}
			waitFor(t, run, 2*time.Minute, "a sync half done", func() bool { return same() >= 2 })
			run.cmd.Process.Signal(syscall.SIGKILL)
			ended := run.wait(t, time.Minute)
			test.EvictClient(t, run.cmd.Process.Pid)
			if n := same(); ended.code != -int(syscall.SIGKILL) || n == 20 {
				t.Fatalf("kill: exit %d with %d of 20 files copied; want a kill mid-copy", ended.code, n)
			}
			if err := exec.Command("getfattr", "-n", "user.radoscp.synced", tgt).Run(); err == nil {
				t.Fatal("the killed run left the record of a complete copy")
			}
			sum = sync(t, "full")
			if sum["snapshotted"] != true || sum["scan_reason"] != "the target records no complete copy of a snapshot" {
				t.Fatalf("rerun after the kill: %v", sum)
			}
			syncedLike(t, snapPath("s3"), tgt, "s3")
		})
	}
}

// deploy/radoscp-nightly-sync on the real cluster: it syncs the newest
// snapshot named as snap_schedule names them into the target, which it
// snapshots; a second run finds the target up to date.
func TestE2ENightlySyncScript(t *testing.T) {
	fuse := test.FuseMountACL(t)
	conf := test.FS(t)
	name := "svy" + test.UniqueName(t)[len(test.UniqueName(t))-8:]
	src := syncSubvolume(t, conf, fuse, name)
	older, newer := "scheduled-2026-11-30-00_00_00", "scheduled-2026-12-01-00_00_00"
	test.Ceph(t, "fs", "subvolume", "snapshot", "create", "cephfs", name, older)
	test.Run(t, "sh", "-ec", "cd "+src+" && echo newer > c/f")
	test.Ceph(t, "fs", "subvolume", "snapshot", "create", "cephfs", name, newer)
	target := name + "-mirror"
	t.Cleanup(func() { removeSubvolumeWithSnapshots(conf, target) })
	script, err := filepath.Abs("../../deploy/radoscp-nightly-sync")
	if err != nil {
		t.Fatal(err)
	}
	run := func() (int, string) {
		cmd := exec.Command("sh", script)
		cmd.Env = append(os.Environ(), "RADOSCP="+binary, "CEPH_CONF="+conf, "RADOSCP_ID=admin", "RADOSCP_VOLUME=cephfs", "RADOSCP_SUBVOLUME="+name)
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out) + string(ee.Stderr)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	code, out := run()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || !strings.Contains(lines[len(lines)-1], `"snapshot":"`+newer+`"`) || !strings.Contains(lines[len(lines)-1], `"snapshotted":true`) {
		t.Fatalf("nightly sync: exit %d\n%s", code, out)
	}
	tgt := fuse + strings.TrimSpace(test.Ceph(t, "fs", "subvolume", "getpath", "cephfs", target))
	snap := filepath.Dir(src) + "/.snap/" + newer + "/" + filepath.Base(src)
	syncedLike(t, snap, tgt, newer)
	if code, out = run(); code != 0 || !strings.Contains(out, `"up_to_date":true`) {
		t.Fatalf("second nightly sync: exit %d\n%s", code, out)
	}
}
