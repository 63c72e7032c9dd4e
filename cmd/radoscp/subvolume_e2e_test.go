package main

import (
	"bytes"
	endian "encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// svEnv is a source subvolume of the test's own, snapshotted, with the
// file system mounted through ceph-fuse to build and check trees.
type svEnv struct {
	conf, fuse string
	name       string // the source subvolume
	snap       string
	data       string // the source's data path (getpath)
}

// subvolumeDirLayout is the layout of the source's a/b: another data pool
// and a striping of its own.
const subvolumeDirLayout = "stripe_unit=65536 stripe_count=2 object_size=1048576 pool=cephfs_data2"

// subvolumeQuota is the source subvolume's byte quota: room for the
// tree newSubvolume builds with its big files too (about 70 MiB with 10).
// A client enforces a quota once the directory's rstats reach it, so a
// tree over it failed a later write in some runs only (EDQUOT).
const subvolumeQuota = 128 << 20

// newSubvolume makes subvolume NAME (mode 750, uid/gid 1000, 128 MiB quota)
// holding nested directories, a striped file, a sparse file, symlinks,
// hard links, a directory layout, a directory's max_files quota, a user
// xattr and old times; snapshots it; then changes its head, so that a
// clone of the head would differ from one of the snapshot. big adds
// files enough for a slowed-down clone to last seconds.
func newSubvolume(t *testing.T, fuse, name string, big int) *svEnv {
	t.Helper()
	e := &svEnv{conf: test.FS(t), fuse: fuse, name: name, snap: "snap1"}
	test.Ceph(t, "fs", "subvolume", "create", "cephfs", name, "--size", strconv.Itoa(subvolumeQuota), "--mode", "750", "--uid", "1000", "--gid", "1000")
	t.Cleanup(func() {
		exec.Command("ceph", "-c", e.conf, "fs", "subvolume", "snapshot", "rm", "cephfs", name, e.snap, "--force").Run()
		exec.Command("ceph", "-c", e.conf, "fs", "subvolume", "rm", "cephfs", name, "--force").Run()
	})
	e.data = strings.TrimSpace(test.Ceph(t, "fs", "subvolume", "getpath", "cephfs", name))
	root := fuse + e.data
	sh := func(script string) {
		t.Helper()
		cmd := exec.Command("bash", "-euc", script)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building the source: %v\n%s\n%s", err, script, out)
		}
	}
	sh(`mkdir -p a/b/c a/d
head -c 3145000 /dev/urandom > a/regular
setfattr -n ceph.dir.layout -v "` + subvolumeDirLayout + `" a/b
touch a/b/striped
setfattr -n ceph.file.layout -v "stripe_unit=65536 stripe_count=3 object_size=1048576 pool=cephfs_data2" a/b/striped
head -c 5243000 /dev/urandom > a/b/striped
truncate -s 20M a/sparse
head -c 100000 /dev/urandom | dd of=a/sparse conv=notrunc status=none
head -c 70000 /dev/urandom | dd of=a/sparse bs=1M seek=13 conv=notrunc status=none
head -c 2100000 /dev/urandom > a/b/c/in-layout
ln a/regular a/b/c/hard1
ln a/regular hard2
ln -s regular a/link
ln -s /elsewhere/absolute a/d/abs
setfattr -n ceph.quota.max_files -v 1000 a
setfattr -n user.origin -v test a/regular
chown 1000:1001 a/b/c/in-layout
chmod 600 a/b/c/in-layout
touch -h -d 2001-02-03T04:05:06 a/link
touch -d 2002-03-04T05:06:07 a/d a/regular`)
	for i := 0; i < big; i++ {
		sh("head -c 4194304 /dev/urandom > a/d/big" + strconv.Itoa(i))
	}
	test.Ceph(t, "fs", "subvolume", "snapshot", "create", "cephfs", name, e.snap)
	sh(`echo changed >> a/regular
rm a/link
echo new > a/new
setfattr -x ceph.dir.layout a/b 2>/dev/null || true
setfattr -n ceph.quota.max_files -v 5 a`)
	return e
}

// snapPath is the snapshot's tree through ceph-fuse (version 2
// subvolumes are snapshotted above their data directory).
func (e *svEnv) snapPath() string {
	return path.Join(e.fuse, path.Dir(e.data), ".snap", e.snap, path.Base(e.data))
}

// checkClone checks subvolume target against the snapshot through
// ceph-fuse and the ceph CLI: the same tree (diff -r, rsync -a -H -X
// --checksum), hard links, directory layouts and quotas, the file's
// striping, the subvolume's info, and no staging or mark left.
func (e *svEnv) checkClone(t *testing.T, target string) {
	t.Helper()
	tp := strings.TrimSpace(test.Ceph(t, "fs", "subvolume", "getpath", "cephfs", target))
	snap, dst := e.snapPath(), e.fuse+tp
	if out, err := exec.Command("diff", "-r", "--no-dereference", snap, dst).CombinedOutput(); err != nil {
		t.Fatalf("diff -r snapshot clone: %v\n%s", err, out)
	}
	if out := test.Run(t, "rsync", "-a", "-H", "-X", "-n", "-i", "--checksum", snap+"/", dst+"/"); out != "" {
		t.Fatalf("rsync -a -H -X -n -i --checksum snapshot/ clone/ finds differences:\n%s", out)
	}
	var ino []string
	for _, p := range []string{"a/regular", "a/b/c/hard1", "hard2"} {
		ino = append(ino, strings.TrimSpace(test.Run(t, "stat", "-c", "%i,%h", dst+"/"+p)))
	}
	if ino[0] != ino[1] || ino[0] != ino[2] || !strings.HasSuffix(ino[0], ",3") {
		t.Fatalf("hard links in the clone (stat -c %%i,%%h): %v; want one inode with 3 links", ino)
	}
	attr := func(name, p string) string {
		out, _ := exec.Command("getfattr", "--only-values", "-n", name, p).Output()
		return string(out)
	}
	for _, c := range []struct{ name, path string }{
		{"ceph.dir.layout", "a/b"}, {"ceph.dir.layout", ""}, {"ceph.quota.max_files", "a"},
		{"ceph.quota.max_bytes", ""}, {"ceph.file.layout", "a/b/striped"}, {"ceph.file.layout", "a/b/c/in-layout"},
	} {
		want, got := attr(c.name, snap+"/"+c.path), attr(c.name, dst+"/"+c.path)
		if got != want {
			t.Errorf("getfattr -n %s %s: clone %q, snapshot %q", c.name, c.path, got, want)
		}
	}
	if got := attr("ceph.dir.layout", dst+"/a/b"); got != subvolumeDirLayout {
		t.Errorf("clone's a/b layout %q, want the snapshot's %q", got, subvolumeDirLayout)
	}
	if got := attr("ceph.quota.max_files", dst+"/a"); got != "1000" {
		t.Errorf("clone's a max_files %q, want the snapshot's 1000 (the head has 5)", got)
	}
	if out := test.Run(t, "find", dst, "-name", ".radoscp*"); out != "" {
		t.Fatalf("staging left in the clone:\n%s", out)
	}
	if out, _ := exec.Command("getfattr", "-d", "-m", "user.radoscp", dst).Output(); len(out) != 0 {
		t.Fatalf("the clone's root keeps radoscp's marks:\n%s", out)
	}
	var info struct {
		Mode, UID, GID int
		BytesQuota     any    `json:"bytes_quota"`
		DataPool       string `json:"data_pool"`
		State          string
		Path           string
	}
	if err := json.Unmarshal([]byte(test.Ceph(t, "fs", "subvolume", "info", "cephfs", target)), &info); err != nil {
		t.Fatal(err)
	}
	if info.Mode != 0o40750 || info.UID != 1000 || info.GID != 1000 || info.BytesQuota != float64(subvolumeQuota) ||
		info.DataPool != "cephfs_data" || info.State != "complete" || info.Path != tp {
		t.Fatalf("ceph fs subvolume info %s: %+v; want mode 40750, uid/gid 1000, quota 128 MiB, pool cephfs_data, complete", target, info)
	}
	if !strings.Contains(test.Ceph(t, "fs", "subvolume", "ls", "cephfs"), `"`+target+`"`) {
		t.Fatalf("ceph fs subvolume ls does not list %s", target)
	}
}

func removeSubvolumeAtEnd(t *testing.T, conf, name string) {
	t.Cleanup(func() { exec.Command("ceph", "-c", conf, "fs", "subvolume", "rm", "cephfs", name, "--force").Run() })
}

// radoscp subvolume clone gives, on a normal and a slow client, a
// subvolume whose tree is the snapshot's (not the changed head's), with
// its links, layouts and quotas, that the mgr lists and describes.
func TestE2ESubvolumeClone(t *testing.T) {
	fuse := test.FuseMount(t)
	conf := test.FS(t)
	for _, c := range confs(t, conf) {
		t.Run(c.name, func(t *testing.T) {
			name := "sv" + test.UniqueName(t)[len(test.UniqueName(t))-8:]
			e := newSubvolume(t, fuse, name, 0)
			target := name + "-clone"
			removeSubvolumeAtEnd(t, conf, target)
			r := runCmd(t, nil, "subvolume", "clone", "-c", c.conf, "--json", "--progress", "on", "cephfs", name, e.snap, target)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			// The snapshot's tree is counted alongside the clone: the
			// last frame shows its total, not "counting the tree".
			if f := finalFrame(t, r.stderr); !strings.Contains(f, "100.0%") || strings.Contains(f, "counting") {
				t.Fatalf("last progress frame %q: want 100%% of the counted tree", f)
			}
			lines := jsonLines(t, r)
			sum := lines[len(lines)-1]
			if sum["summary"] != true || sum["state"] != "complete" || sum["hard_links"] != 2.0 || sum["files"] != 4.0 ||
				sum["symlinks"] != 2.0 || sum["created"] != true || sum["error"] != nil || sum["schema_version"] != 1.0 {
				t.Fatalf("summary %v", sum)
			}
			e.checkClone(t, target)
		})
	}
}

// A clone killed (SIGKILL, on a normal and a slow client) or interrupted
// (SIGINT) in the middle of its copy leaves nothing visible in the target
// (only its staging directory, the root closed); the interrupted one
// exits 3 saying how to continue. The tree is built as a new target's is
// (fscopy's freshtree.go): files at their final names, the one being
// copied among them, and no per-file staging name anywhere. A rerun
// without --resume is refused, and with --resume finishes it: the same
// result as an uninterrupted clone.
func TestE2ESubvolumeCloneKilledAndResumed(t *testing.T) {
	fuse := test.FuseMount(t)
	conf := test.FS(t)
	slow := test.SlowConf(t, 0.5)
	for _, c := range []struct {
		name, conf string
		sig        syscall.Signal
	}{{"killed/normal", conf, syscall.SIGKILL}, {"killed/slow", slow, syscall.SIGKILL}, {"interrupted/normal", conf, syscall.SIGINT}} {
		sig := c.sig
		t.Run(c.name, func(t *testing.T) {
			name := "svk" + test.UniqueName(t)[len(test.UniqueName(t))-8:]
			e := newSubvolume(t, fuse, name, 10)
			target := name + "-clone"
			removeSubvolumeAtEnd(t, conf, target)
			run := startCmd(t, delayEnv(0.2), "subvolume", "clone", "-c", c.conf, "--files", "1", "--window", "1", "--no-progress", "--json",
				"cephfs", name, e.snap, target)
			// Mid-copy: some of the ten big files of a/d made in the
			// staging directory, not all. Their names are read with
			// readdir alone: a stat through ceph-fuse of a file being
			// written waits for the copy's write (the writer's caps).
			var staging string
			waitFor(t, run, 2*time.Minute, "a clone half done, 3 to 9 of its 10 big files made", func() bool {
				if staging == "" {
					out, err := exec.Command("ceph", "-c", conf, "fs", "subvolume", "getpath", "cephfs", target).Output()
					if err != nil {
						return false
					}
					staging = fuse + strings.TrimSpace(string(out)) + "/.radoscp.clone"
				}
				big := 0
				for _, name := range dirNames(staging + "/a/d") {
					if strings.HasPrefix(name, "big") {
						big++
					}
				}
				return big >= 3 && big < 10
			})
			run.cmd.Process.Signal(sig)
			ended := run.wait(t, time.Minute)
			if sig == syscall.SIGKILL {
				test.EvictClient(t, run.cmd.Process.Pid)
			} else {
				lines := jsonLines(t, ended)
				if sum := lines[len(lines)-1]; ended.code != 3 || sum["state"] != "interrupted" || !strings.Contains(ended.stderr, "--resume") ||
					strings.Contains(ended.stderr+ended.stdout, "interrupted: interrupted") {
					t.Fatalf("interrupted clone: exit %d, summary %v, stderr %q; want 3, interrupted (said once), naming --resume", ended.code, sum, ended.stderr)
				}
				for _, l := range lines[:len(lines)-1] {
					if l["outcome"] == "failed" {
						t.Fatalf("a file in flight at the interrupt reported failed, not interrupted: %v", l)
					}
				}
			}
			root := path.Dir(staging)
			if names := test.Run(t, "ls", "-A", root); strings.TrimSpace(names) != ".radoscp.clone" {
				t.Fatalf("the stopped clone's target shows %q; want only its staging directory", names)
			}
			if st := strings.TrimSpace(test.Run(t, "stat", "-c", "%a %u %g", root)); st != "700 0 0" {
				t.Fatalf("the stopped clone's root is %q; want 700, root's", st)
			}
			if out := test.Run(t, "find", staging, "-mindepth", "1", "-name", ".radoscp*"); out != "" {
				t.Fatalf("per-file staging names in the stopped clone's tree:\n%s", out)
			}
			big, _ := filepath.Glob(staging + "/a/d/big*")
			if len(big) >= 10 {
				t.Fatalf("the stopped clone had made all 10 big files: the %s did not land mid-copy", sig)
			}
			r := runCmd(t, nil, "subvolume", "clone", "-c", c.conf, "cephfs", name, e.snap, target)
			if r.code != 2 || !strings.Contains(r.stderr, "--resume") {
				t.Fatalf("rerun without --resume: exit %d, stderr %q; want 2 naming --resume", r.code, r.stderr)
			}
			r = runCmd(t, nil, "subvolume", "clone", "-c", c.conf, "--resume", "--json", "cephfs", name, e.snap, target)
			if r.code != 0 {
				t.Fatalf("resume: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			lines := jsonLines(t, r)
			sum := lines[len(lines)-1]
			// Interrupted, the client flushed what it had copied as it
			// ended: every file but the one in flight is kept. Killed,
			// a file's size and times may have been in the dead
			// client's buffers, not at the MDS: such a file is copied
			// again, as many as the kill caught.
			kept := 0
			if sig == syscall.SIGINT {
				kept = len(big) - 1
			}
			if sum["state"] != "complete" || sum["resumed"] != true || sum["created"] != false || sum["unchanged"].(float64) < float64(kept) {
				t.Fatalf("resume summary %v; want complete, resumed, at least %d of the %d files begun before the signal unchanged", sum, kept, len(big))
			}
			t.Logf("%s with %d of 10 big files begun; resume: %v unchanged, %v copied", sig, len(big), sum["unchanged"], sum["files"])
			e.checkClone(t, target)
		})
	}
}

// What is refused exits 2 before anything is written: a missing snapshot
// or subvolume, an existing target, a pool that is not a data pool.
func TestE2ESubvolumeCloneBadInput(t *testing.T) {
	fuse := test.FuseMount(t)
	conf := test.FS(t)
	name := "svb" + test.UniqueName(t)[len(test.UniqueName(t))-8:]
	e := newSubvolume(t, fuse, name, 0)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"cephfs", name, "nosuchsnap", name + "-x"}, "nosuchsnap"},
		{[]string{"cephfs", "nosuchsubvolume", e.snap, name + "-x"}, "nosuchsubvolume"},
		{[]string{"cephfs", name, e.snap, name}, "is the source subvolume"},
		{[]string{"cephfs", name, e.snap, "a/b"}, `"a/b"`},
		{[]string{"--pool", "radoscp-a", "cephfs", name, e.snap, name + "-x"}, "radoscp-a"},
		{[]string{"--target-group", "nosuchgroup", "cephfs", name, e.snap, name + "-x"}, "nosuchgroup"},
	} {
		r := runCmd(t, nil, append([]string{"subvolume", "clone", "-c", conf}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("subvolume clone %q: exit %d, stderr %q; want 2 naming %s", c.args, r.code, r.stderr, c.want)
		}
	}
	other := name + "-exists"
	test.Ceph(t, "fs", "subvolume", "create", "cephfs", other)
	removeSubvolumeAtEnd(t, conf, other)
	r := runCmd(t, nil, "subvolume", "clone", "-c", conf, "--json", "cephfs", name, e.snap, other)
	if r.code != 2 || !strings.Contains(r.stderr, "exists") {
		t.Fatalf("clone onto an existing subvolume: exit %d, stderr %q", r.code, r.stderr)
	}
	if lines := jsonLines(t, r); len(lines) != 1 || lines[0]["state"] != "refused" {
		t.Fatalf("--json of a refused clone: %v", lines)
	}
	if out := test.Run(t, "ls", "-A", fuse+strings.TrimSpace(test.Ceph(t, "fs", "subvolume", "getpath", "cephfs", other))); out != "" {
		t.Fatalf("a refused clone wrote into the existing subvolume: %q", out)
	}
}

// The caps a clone needs are what `ceph fs authorize FS client.X / rwp`
// gives plus `mgr 'allow rw'` (the volumes interface). Without write on
// the data pools the clone fails and its target is removed; without 'p'
// the directory layout cannot be set, which the message says, and the
// target is removed; without the mgr cap nothing is created.
func TestE2ESubvolumeCloneLeastPrivilege(t *testing.T) {
	fuse := test.FuseMount(t)
	conf := test.FS(t)
	name := "svp" + test.UniqueName(t)[len(test.UniqueName(t))-8:]
	e := newSubvolume(t, fuse, name, 0)
	client := test.UniqueName(t)[:20] + "sv"
	full := []string{"mon", "allow r fsname=cephfs", "mgr", "allow rw", "mds", "allow rwp fsname=cephfs", "osd", "allow rw tag cephfs data=cephfs"}
	keyring := test.Client(t, client, full...)
	as := []string{"subvolume", "clone", "-c", conf, "--id", client, "--keyring", keyring}
	listed := func(target string) bool {
		return strings.Contains(test.Ceph(t, "fs", "subvolume", "ls", "cephfs"), `"`+target+`"`)
	}
	for _, c := range []struct {
		name string
		caps []string
		want []string // in stderr
	}{
		{"read-only data pools", []string{"mon", "allow r fsname=cephfs", "mgr", "allow rw", "mds", "allow rwp fsname=cephfs", "osd", "allow r tag cephfs data=cephfs"},
			[]string{"EPERM", "was removed"}},
		{"no p", []string{"mon", "allow r fsname=cephfs", "mgr", "allow rw", "mds", "allow rw fsname=cephfs", "osd", "allow rw tag cephfs data=cephfs"},
			[]string{"EACCES", "'p'", "ceph.dir.layout", "was removed"}},
	} {
		target := name + "-" + strings.ReplaceAll(c.name, " ", "-")
		removeSubvolumeAtEnd(t, conf, target)
		test.Client(t, client, c.caps...)
		r := runCmd(t, nil, append(as, "cephfs", name, e.snap, target)...)
		for _, w := range c.want {
			if r.code != 1 || !strings.Contains(r.stderr, w) {
				t.Fatalf("%s: exit %d, stderr %q; want 1 and %q", c.name, r.code, r.stderr, w)
			}
		}
		if listed(target) {
			t.Fatalf("%s: the failed clone's target %s is still listed", c.name, target)
		}
		t.Logf("%s: %s", c.name, r.stderr)
	}
	test.Client(t, client, "mon", "allow r fsname=cephfs", "mds", "allow rwp fsname=cephfs", "osd", "allow rw tag cephfs data=cephfs")
	r := runCmd(t, nil, append(as, "cephfs", name, e.snap, name+"-nomgr")...)
	if r.code != 1 || !strings.Contains(r.stderr, "EACCES") || listed(name+"-nomgr") {
		t.Fatalf("without mgr caps: exit %d, stderr %q; want 1, EACCES and no target", r.code, r.stderr)
	}
	t.Logf("no mgr caps: %s", r.stderr)

	test.Client(t, client, full...)
	target := name + "-clone"
	removeSubvolumeAtEnd(t, conf, target)
	if r := runCmd(t, nil, append(as, "cephfs", name, e.snap, target)...); r.code != 0 {
		t.Fatalf("with the caps listed: exit %d\nstderr: %s", r.code, r.stderr)
	}
	e.checkClone(t, target)
}

// --group, --target-group and --pool: a subvolume in one group cloned into
// another group, its data in another pool: the mgr reports the clone there,
// and its files and root are laid out in that pool (getfattr through
// ceph-fuse).
func TestE2ESubvolumeCloneGroupsAndPool(t *testing.T) {
	fuse := test.FuseMount(t)
	conf := test.FS(t)
	u := test.UniqueName(t)
	g1, g2, name := "g1"+u[len(u)-8:], "g2"+u[len(u)-8:], "svg"+u[len(u)-8:]
	for _, g := range []string{g1, g2} {
		test.Ceph(t, "fs", "subvolumegroup", "create", "cephfs", g)
	}
	test.Ceph(t, "fs", "subvolume", "create", "cephfs", name, "--group_name", g1)
	t.Cleanup(func() {
		for _, args := range [][]string{
			{"subvolume", "rm", "cephfs", name + "-clone", "--group_name", g2},
			{"subvolume", "snapshot", "rm", "cephfs", name, "s", "--group_name", g1},
			{"subvolume", "rm", "cephfs", name, "--group_name", g1},
		} {
			exec.Command("ceph", append([]string{"-c", conf, "fs"}, args...)...).Run()
		}
		// The groups go once the mgr has purged their subvolumes.
		for i := 0; i < 50; i++ {
			if exec.Command("ceph", "-c", conf, "fs", "subvolumegroup", "rm", "cephfs", g1).Run() == nil &&
				exec.Command("ceph", "-c", conf, "fs", "subvolumegroup", "rm", "cephfs", g2).Run() == nil {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
	})
	data := strings.TrimSpace(test.Ceph(t, "fs", "subvolume", "getpath", "cephfs", name, "--group_name", g1))
	if err := os.WriteFile(fuse+data+"/x", []byte("in a group\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	test.Ceph(t, "fs", "subvolume", "snapshot", "create", "cephfs", name, "s", "--group_name", g1)
	r := runCmd(t, nil, "subvolume", "clone", "-c", conf, "--group", g1, "--target-group", g2, "--pool", "cephfs_data2", "cephfs", name, "s", name+"-clone")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	var info struct {
		DataPool string `json:"data_pool"`
		Path     string
	}
	if err := json.Unmarshal([]byte(test.Ceph(t, "fs", "subvolume", "info", "cephfs", name+"-clone", "--group_name", g2)), &info); err != nil {
		t.Fatal(err)
	}
	if info.DataPool != "cephfs_data2" || !strings.HasPrefix(info.Path, "/volumes/"+g2+"/") {
		t.Fatalf("subvolume info: %+v; want pool cephfs_data2 in group %s", info, g2)
	}
	if got, _ := os.ReadFile(fuse + info.Path + "/x"); string(got) != "in a group\n" {
		t.Fatalf("the clone's x: %q", got)
	}
	for _, c := range []struct{ name, path string }{{"ceph.file.layout", "/x"}, {"ceph.dir.layout", ""}} {
		out, _ := exec.Command("getfattr", "--only-values", "-n", c.name, fuse+info.Path+c.path).Output()
		if !strings.HasSuffix(string(out), "pool=cephfs_data2") {
			t.Errorf("getfattr -n %s of the clone%s: %q; want pool cephfs_data2", c.name, c.path, out)
		}
	}
}

// dirNames is dir's entries as readdir gives them (getdents64), with no
// stat of any entry; nil if dir cannot be read.
func dirNames(dir string) []string {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	var names []string
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Getdents(int(f.Fd()), buf)
		if err != nil || n <= 0 {
			return names
		}
		// struct linux_dirent64: ino (8 bytes), off (8), reclen (2),
		// type (1), then the name, NUL-terminated.
		for b := buf[:n]; len(b) >= 19; {
			reclen := endian.NativeEndian.Uint16(b[16:18])
			name := b[19:reclen]
			names = append(names, string(name[:bytes.IndexByte(name, 0)]))
			b = b[reclen:]
		}
	}
}
