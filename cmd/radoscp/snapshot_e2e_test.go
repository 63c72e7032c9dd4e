package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/radoscp/radoscp/test"
)

// Copies from snapshots, checked through readers that are not radoscp:
// ceph-fuse (cmp, diff -r, rsync) for CephFS snapshots, the rados CLI
// (-s SNAP) for pool snapshots.

// snapshotFS makes snapshot name of dir through ceph-fuse and removes it
// (if still there) before the directory is.
func (e *slowEnv) snapshotFS(t *testing.T, dir, name string) string {
	t.Helper()
	snap := filepath.Join(dir, ".snap", name)
	if err := os.Mkdir(e.local(snap), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(e.local(snap)) })
	return snap
}

// writeLocal writes data at off of p through ceph-fuse, creating it.
func (e *slowEnv) writeLocal(t *testing.T, p string, off int64, data []byte) {
	t.Helper()
	f, err := os.OpenFile(e.local(p), os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(data, off); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// differs checks through ceph-fuse that head p is not copy c (or is gone).
func (e *slowEnv) differs(t *testing.T, head, c string) {
	t.Helper()
	if _, err := os.Lstat(e.local(head)); errors.Is(err, fs.ErrNotExist) {
		return
	}
	args := []string{e.local(head), e.local(c)}
	cmd := "cmp"
	if st, err := os.Lstat(e.local(head)); err == nil && st.IsDir() {
		cmd, args = "diff", append([]string{"-r", "-q", "--no-dereference"}, args...)
	}
	if err := exec.Command(cmd, args...).Run(); err == nil {
		t.Fatalf("%s %s %s: equal; the case is void, head must differ from the snapshot", cmd, head, c)
	}
}

// Every case of the issue, from one snapshot: head overwritten, truncated,
// extended and deleted after it; a sparse file (filled in since); a
// striped file (stripe count 3); a file larger than one object set; a
// tree with nested directories and symlinks, changed since. Each copy
// equals the snapshot through ceph-fuse (bytes, modes, times, owners,
// link targets) and differs from head. The file copies run again with OSD
// replies up to 1 s late, and with the cephfs:FSNAME: form.
func TestE2ECephFSSnapshotCopies(t *testing.T) {
	e := newSlowEnv(t, 1.0)
	if err := os.MkdirAll(e.local("sv/tree/a/b"), 0o755); err != nil {
		t.Fatal(err)
	}
	data := func(seed uint64, n int) []byte { return test.RandomData(seed, n) }
	e.writeLocal(t, "sv/over", 0, data(1, 9<<20+11))
	e.writeLocal(t, "sv/trunc", 0, data(2, 6<<20))
	e.writeLocal(t, "sv/ext", 0, data(3, 3<<20+5))
	e.writeLocal(t, "sv/del", 0, data(4, 5<<20))
	e.writeLocal(t, "sv/sparse", 0, data(5, 100<<10))
	e.writeLocal(t, "sv/sparse", 13<<20, data(6, 200<<10))
	if err := os.WriteFile(e.local("sv/striped"), nil, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := unix.Setxattr(e.local("sv/striped"), "ceph.file.layout", []byte("stripe_unit=65536 stripe_count=3 object_size=1048576"), 0); err != nil {
		t.Fatal(err)
	}
	e.writeLocal(t, "sv/striped", 0, data(7, 9<<20+777))
	e.writeLocal(t, "sv/big", 0, data(8, 13<<20+3)) // object sets of 4 MiB
	e.writeLocal(t, "sv/tree/top", 0, data(9, 5<<20))
	e.writeLocal(t, "sv/tree/a/mid", 0, data(10, 100))
	e.writeLocal(t, "sv/tree/a/b/deep", 0, data(11, 4<<20+1))
	for link, target := range map[string]string{"sv/tree/a/up": "../top", "sv/tree/a/b/dangling": "nowhere"} {
		if err := os.Symlink(target, e.local(link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.Setxattr(e.local("sv/tree/top"), "user.kept", []byte("snap"), 0); err != nil {
		t.Fatal(err)
	}
	snap := e.snapshotFS(t, "sv", "s1")

	// Head moves on.
	e.writeLocal(t, "sv/over", 1<<20, data(21, 6<<20))
	if err := os.Truncate(e.local("sv/trunc"), 1<<20); err != nil {
		t.Fatal(err)
	}
	e.writeLocal(t, "sv/ext", 3<<20+5, data(23, 7<<20))
	if err := os.Remove(e.local("sv/del")); err != nil {
		t.Fatal(err)
	}
	e.writeLocal(t, "sv/sparse", 6<<20, data(25, 4096))
	e.writeLocal(t, "sv/striped", 2<<20, data(27, 1<<20))
	e.writeLocal(t, "sv/big", 8<<20, data(28, 4<<20))
	e.writeLocal(t, "sv/tree/a/b/deep", 0, data(31, 10))
	if err := os.Remove(e.local("sv/tree/a/up")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b/deep", e.local("sv/tree/a/up")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(e.local("sv/tree/top"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.writeLocal(t, "sv/tree/new", 0, []byte("after"))
	files := []string{"over", "trunc", "ext", "del", "sparse", "striped", "big"}
	for _, f := range append(files, "tree") {
		e.differs(t, "sv/"+f, snap+"/"+f)
	}

	// The whole snapshot as a tree.
	r := runCmd(t, nil, "cp", "-r", "-c", e.conf, "--no-progress", "cephfs:"+e.path(snap), "cephfs:"+e.path("all"))
	if r.code != 0 {
		t.Fatalf("cp -r of the snapshot: exit %d\n%s", r.code, r.stderr)
	}
	e.same(t, snap, "all")
	for _, f := range append(files, "tree") {
		e.differs(t, "sv/"+f, "all/"+f)
	}

	// Each file alone, slow, in the cephfs:FSNAME: form.
	if err := os.Mkdir(e.local("slow"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		r := runCmd(t, nil, "cp", "-c", e.slow, "--window", "4", "--no-progress",
			"cephfs:cephfs:"+e.path(snap+"/"+f), "cephfs:cephfs:"+e.path("slow/"+f))
		if r.code != 0 {
			t.Fatalf("slow copy of %s: exit %d\n%s", f, r.code, r.stderr)
		}
		e.same(t, snap+"/"+f, "slow/"+f)
		e.differs(t, "sv/"+f, "slow/"+f)
	}
	// The tree alone, slow.
	r = runCmd(t, nil, "cp", "-r", "-c", e.slow, "--no-progress", "cephfs:"+e.path(snap+"/tree"), "cephfs:"+e.path("slowtree"))
	if r.code != 0 {
		t.Fatalf("slow cp -r of the snapshot's tree: exit %d\n%s", r.code, r.stderr)
	}
	e.same(t, snap+"/tree", "slowtree")
	e.differs(t, "sv/tree", "slowtree")
}

// A snapshot removed (rmdir through ceph-fuse) while a slow copy of it runs:
// the copy fails with exit 1 naming the snapshot; no destination and no
// staging file are left.
func TestE2ECephFSSnapshotRemovedMidCopy(t *testing.T) {
	e := newSlowEnv(t, 1.0)
	if err := os.Mkdir(e.local("sv"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.writeLocal(t, "sv/f", 0, test.RandomData(41, 40<<20))
	snap := e.snapshotFS(t, "sv", "s1")
	run := startCmd(t, nil, "cp", "-c", e.slow, "--window", "1", "--no-progress",
		"cephfs:"+e.path(snap+"/f"), "cephfs:"+e.path("copy"))
	staging := e.local(".radoscp.copy")
	waitFor(t, run, 60*time.Second, "the staging file", func() bool {
		_, err := os.Stat(staging)
		return err == nil
	})
	time.Sleep(time.Second) // copies of objects in flight
	if err := os.Remove(e.local(snap)); err != nil {
		t.Fatal(err)
	}
	if !run.running() {
		t.Fatal("the copy ended before the snapshot was removed")
	}
	r := run.wait(t, 5*time.Minute)
	if (r.code != 1 && r.code != 3) || !strings.Contains(r.stderr, "snapshot cephfs:"+e.path(snap)) || !strings.Contains(r.stderr, "removed") {
		t.Fatalf("copy of a snapshot removed mid-copy: exit %d, stderr %q; want 1 or 3 naming the snapshot", r.code, r.stderr)
	}
	for _, p := range []string{e.local("copy"), staging} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s after the failed copy: %v", p, err)
		}
	}
}

// mksnap makes pool snapshot name of pool and removes it when t ends.
func mksnap(t *testing.T, conf, pool, name string) {
	t.Helper()
	test.Run(t, "ceph", "-c", conf, "osd", "pool", "mksnap", pool, name)
	t.Cleanup(func() { _ = exec.Command("ceph", "-c", conf, "osd", "pool", "rmsnap", pool, name).Run() })
}

// radosGet reads object oid of pool at pool snapshot snap ("": head)
// through the rados CLI, nil if it does not exist there.
func radosGet(t *testing.T, conf, pool, snap, oid string, striper bool) []byte {
	t.Helper()
	file := filepath.Join(t.TempDir(), "get")
	args := []string{"-p", pool}
	if snap != "" {
		args = append(args, "-s", snap)
	}
	if striper {
		args = append(args, "--striper")
	}
	// rados get creates the output file before it reads the object, so
	// a missing object (or a failed read) leaves an empty file: only the
	// command's own result tells them from an empty object.
	out, err := test.RadosCLI(conf, append(args, "get", oid, file)...)
	if err != nil && strings.Contains(err.Error(), "No such file") {
		return nil
	}
	got, rerr := os.ReadFile(file)
	if err != nil || rerr != nil {
		t.Fatalf("rados %v get %s: %v %v: %s", args, oid, err, rerr, out)
	}
	return got
}

// moveHeads makes the heads of striped object name (in radoscp-a) and of
// raw set raw differ from a pool snapshot just taken: name is replaced by
// a 2 MiB copy with 1 MiB objects and the extra layout flags, raw's
// object put gets 4 new bytes and its object rm is removed. The raw heads
// change through the rados CLI, a client started after mksnap returned: a
// pool connected before it could still hold an OSD map without the
// snapshot, and its writes would then carry the old snap context (the
// OSDs would keep no clone, and the case would be void).
func moveHeads(t *testing.T, conf, name string, layoutFlags []string, raw string, put, rm int) {
	t.Helper()
	other := test.UniqueName(t)
	writeObjects(t, test.OpenPool(t, conf, "radoscp-a"), other, 2, oneMiB)
	args := append(append([]string{"cp", "-c", conf, "--object-size", "1M"}, layoutFlags...), "--length", "2M", "--no-progress",
		"rados:radoscp-a/"+other, "striper:radoscp-a/"+name)
	if r := runCmd(t, nil, args...); r.code != 0 {
		t.Fatalf("replacing the striped head: exit %d: %s", r.code, r.stderr)
	}
	head := filepath.Join(t.TempDir(), "head")
	if err := os.WriteFile(head, []byte("head"), 0o600); err != nil {
		t.Fatal(err)
	}
	test.Run(t, "rados", "-c", conf, "-p", "radoscp-a", "put", objName(raw, put), head)
	test.Run(t, "rados", "-c", conf, "-p", "radoscp-a", "rm", objName(raw, rm))
}

func striperObj(name string, i int) string { return fmt.Sprintf("%s.%016x", name, i) }

// --snap copies a pool snapshot: a striped object whose head was replaced
// by a smaller one after the snapshot (size and layout then come from the
// snapshot's object 0), and a raw object set whose objects were
// overwritten and removed since. Both copies equal the snapshot as the
// rados CLI reads it (-s SNAP) and differ from head; with replies up to
// 1 s late too. A missing snapshot, and --snap on cephfs:, exit 2 with
// nothing written.
func TestE2EPoolSnapshot(t *testing.T) {
	conf := test.Conf(t)
	snapName := test.UniqueName(t)
	name, data := makeStriperSource(t, conf, "radoscp-a", 5<<20+123)
	a := test.OpenPool(t, conf, "radoscp-a")
	raw := test.UniqueName(t)
	objs := writeObjects(t, a, raw, 3, oneMiB)
	t.Cleanup(func() { cleanupObjects(t, a, raw, 3) })
	mksnap(t, conf, "radoscp-a", snapName)

	moveHeads(t, conf, name, []string{"--stripe-unit", "64K", "--stripe-count", "2"}, raw, 1, 2)
	// rados --striper cannot read at a snapshot (libradosstriper locks
	// object 0, a write: EROFS), so the snapshot's striped object is read
	// as its objects, with rados -s.
	n := (len(data) + oneMiB - 1) / oneMiB
	var snapObjs [][]byte
	for i := 0; i < n; i++ {
		snapObjs = append(snapObjs, radosGet(t, conf, "radoscp-a", snapName, striperObj(name, i), false))
	}
	test.Equal(t, "the snapshot's objects, read by rados -s", bytes.Join(snapObjs, nil), data)
	if size := test.Run(t, "rados", "-c", conf, "-p", "radoscp-a", "-s", snapName, "getxattr", striperObj(name, 0), "striper.size"); !strings.HasSuffix(size, "\n"+strconv.Itoa(len(data))) {
		t.Fatalf("striper.size at the snapshot: %q, want %d", size, len(data))
	}
	if head := radosGet(t, conf, "radoscp-a", "", name, true); bytes.Equal(head, data) || len(head) == len(data) {
		t.Fatalf("the striped head (%d bytes) is still the snapshot's: the case is void", len(head))
	}

	b := test.OpenPool(t, conf, "radoscp-b")
	for _, c := range confs(t, conf) {
		t.Run(c.name, func(t *testing.T) {
			dst := test.UniqueName(t)
			t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
			r := runCmd(t, nil, "cp", "-c", c.conf, "--snap", snapName, "--object-size", "1M", "--json", "--no-progress",
				"striper:radoscp-a/"+name, "striper:radoscp-b/"+dst)
			if r.code != 0 {
				t.Fatalf("cp --snap striper: exit %d: %s", r.code, r.stderr)
			}
			if j := parseJSON(t, r); j["objects"].(float64) < 4 {
				t.Fatalf("copy-from copied %v objects: the snapshot's layout (1 MiB objects) was not the copy's", j["objects"])
			}
			test.Equal(t, "striped copy of the snapshot", radosGet(t, conf, "radoscp-b", "", dst, true), data)
			// verify --snap compares the copy with the snapshot, not head.
			if r := runCmd(t, nil, "verify", "-c", c.conf, "--snap", snapName, "striper:radoscp-a/"+name, "striper:radoscp-b/"+dst); r.code != 0 {
				t.Fatalf("verify --snap: exit %d: %s", r.code, r.stderr)
			}
			if r := runCmd(t, nil, "verify", "-c", c.conf, "striper:radoscp-a/"+name, "striper:radoscp-b/"+dst); r.code != 1 {
				t.Fatalf("verify of head against the snapshot's copy: exit %d, want 1: %s", r.code, r.stderr)
			}
			for i, want := range snapObjs {
				test.Equal(t, "copy's object "+strconv.Itoa(i), radosGet(t, conf, "radoscp-b", "", striperObj(dst, i), false), want)
			}

			rawDst := test.UniqueName(t)
			t.Cleanup(func() { cleanupObjects(t, b, rawDst, 3) })
			r = runCmd(t, nil, "cp", "-c", c.conf, "--snap", snapName, "--object-size", "1M", "--length", "3M", "--no-progress",
				"rados:radoscp-a/"+raw, "rados:radoscp-b/"+rawDst)
			if r.code != 0 {
				t.Fatalf("cp --snap rados: exit %d: %s", r.code, r.stderr)
			}
			for i := range objs {
				snapObj := radosGet(t, conf, "radoscp-a", snapName, objName(raw, i), false)
				test.Equal(t, "rados -s of the source", snapObj, objs[i])
				test.Equal(t, "raw copy of the snapshot "+objName(rawDst, i), radosGet(t, conf, "radoscp-b", "", objName(rawDst, i), false), snapObj)
				if i > 0 && bytes.Equal(radosGet(t, conf, "radoscp-a", "", objName(raw, i), false), snapObj) {
					t.Fatalf("head object %d is the snapshot's: the case is void", i)
				}
			}
		})
	}

	dst := test.UniqueName(t)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--snap", "nosuch-" + snapName, "striper:radoscp-a/" + name, "striper:radoscp-b/" + dst}, "has no snapshot nosuch-" + snapName},
		{[]string{"--snap", "nosuch-" + snapName, "--length", "1M", "rados:radoscp-a/" + raw, "rados:radoscp-b/" + dst}, "has no snapshot"},
		{[]string{"--snap", snapName, "cephfs:/a/f", "cephfs:/b"}, "a CephFS snapshot is a path"},
	} {
		r := runCmd(t, nil, append([]string{"cp", "-c", conf, "--no-progress"}, tc.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("cp %v: exit %d, %q; want 2 saying %q", tc.args, r.code, r.stderr, tc.msg)
		}
	}
	absent(t, b, dst+".0000000000000000")
	absent(t, b, objName(dst, 0))
}

// A pool snapshot removed (ceph osd pool rmsnap) while a slow --snap copy
// of it runs: exit 1 or 3 naming the snapshot; what was published is the
// snapshot's first bytes, and nothing lies past it.
func TestE2EPoolSnapshotRemovedMidCopy(t *testing.T) {
	conf := test.Conf(t)
	snapName := test.UniqueName(t)
	name, data := makeStriperSource(t, conf, "radoscp-a", 24<<20)
	mksnap(t, conf, "radoscp-a", snapName)
	dst := test.UniqueName(t)
	t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
	run := startCmd(t, delayEnv(0.5), "cp", "-c", conf, "--snap", snapName, "--window", "1", "--no-progress",
		"striper:radoscp-a/"+name, "striper:radoscp-b/"+dst)
	b := test.OpenPool(t, conf, "radoscp-b")
	waitFor(t, run, 60*time.Second, "a published checkpoint", func() bool {
		v, err := b.Xattr(dst+".0000000000000000", "striper.size")
		n, _ := strconv.ParseUint(string(v), 10, 64)
		return err == nil && n > 0
	})
	test.Run(t, "ceph", "-c", conf, "osd", "pool", "rmsnap", "radoscp-a", snapName)
	if !run.running() {
		t.Fatal("the copy ended before the snapshot was removed")
	}
	r := run.wait(t, 5*time.Minute)
	if (r.code != 1 && r.code != 3) || !strings.Contains(r.stderr, "pool snapshot "+snapName+" of pool radoscp-a") {
		t.Fatalf("copy of a pool snapshot removed mid-copy: exit %d, %q; want 1 or 3 naming the snapshot", r.code, r.stderr)
	}
	eof := checkPublishedPrefix(t, conf, "radoscp-b", dst, data)
	if eof >= uint64(len(data)) {
		t.Fatalf("published EOF %d: the whole copy, after the snapshot was removed", eof)
	}
	checkNoObjectsPastEOF(t, conf, "radoscp-b", dst, eof)
	t.Logf("exit %d, published %d of %d bytes: %s", r.code, eof, len(data), strings.TrimSpace(r.stderr))
}

// Copies into a directory that has snapshots (as snap_schedule makes):
// cp over an existing file and migrate of the tree to another data pool
// both put new inodes in place, and the snapshot taken before still reads
// the old data, through ceph-fuse, after both.
func TestE2ESnapshotOfDestinationKeepsOldData(t *testing.T) {
	e := newSlowEnv(t, 0.5)
	if err := os.Mkdir(e.local("d"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.writeLocal(t, "d/a", 0, test.RandomData(51, 6<<20+1))
	e.writeLocal(t, "d/b", 0, test.RandomData(52, 9<<20+7))
	e.writeLocal(t, "new", 0, test.RandomData(53, 5<<20))
	old := t.TempDir()
	test.Run(t, "cp", "-a", e.local("d/a"), e.local("d/b"), old)
	snap := e.snapshotFS(t, "d", "scheduled-2024-01-01-00_00_00")

	if r := runCmd(t, nil, "cp", "-c", e.conf, "--no-progress", "cephfs:"+e.path("new"), "cephfs:"+e.path("d/a")); r.code != 0 {
		t.Fatalf("cp over d/a: exit %d\n%s", r.code, r.stderr)
	}
	if r := runCmd(t, nil, "migrate", "-c", e.slow, "--pool", "cephfs_data2", "--no-progress", "cephfs:"+e.path("d")); r.code != 0 {
		t.Fatalf("migrate d: exit %d\n%s", r.code, r.stderr)
	}
	if pool, err := unix.Getxattr(e.local("d/b"), "ceph.file.layout.pool", make([]byte, 64)); err != nil || pool != len("cephfs_data2") {
		t.Fatalf("d/b after migrate: layout pool %d bytes, %v", pool, err)
	}
	test.Run(t, "cmp", e.local("new"), e.local("d/a"))
	for _, f := range []string{"a", "b"} {
		test.Run(t, "cmp", filepath.Join(old, f), e.local(snap+"/"+f))
	}
	e.differs(t, "d/a", snap+"/a")
}
