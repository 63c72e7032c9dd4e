package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// The main copies again, on a cluster whose OSD replies all arrive up to
// seconds late: checkpoints (one a second) then land in the middle of
// copies and on their last completion, which fast runs never see. Every
// result is checked through ceph-fuse or the rados CLI with cmp, diff and
// rsync, never through radoscp.

// slowEnv is the test's CephFS directory, a ceph-fuse mount of it and a
// client conf with OSD replies delayed up to maxDelay seconds.
type slowEnv struct {
	*fsEnv
	slow, fuse string
}

func newSlowEnv(t *testing.T, maxDelay float64) *slowEnv {
	t.Helper()
	e := newFSEnv(t)
	return &slowEnv{fsEnv: e, slow: test.SlowConf(t, maxDelay), fuse: test.FuseMount(t)}
}

// clients are the test cluster's own client and the slow one, by name,
// for a test that runs with each.
func (e *slowEnv) clients() []struct{ name, conf string } {
	return []struct{ name, conf string }{{"normal", e.conf}, {"slow", e.slow}}
}

// local is p as ceph-fuse shows it.
func (e *slowEnv) local(p string) string { return filepath.Join(e.fuse, e.path(p)) }

// same checks through ceph-fuse that the trees or files a and b are equal
// in size, content and metadata: cmp or diff -r, and rsync's own
// comparison of contents, modes, times and owners.
func (e *slowEnv) same(t *testing.T, a, b string, rsyncFlags ...string) {
	t.Helper()
	la, lb := e.local(a), e.local(b)
	if st, err := os.Stat(la); err == nil && st.IsDir() {
		test.Run(t, "diff", "-r", "--no-dereference", la, lb)
		la, lb = la+"/", lb+"/"
	} else {
		test.Run(t, "cmp", la, lb)
	}
	if out := test.Run(t, "rsync", append(append([]string{"-a", "-n", "-i", "--checksum"}, rsyncFlags...), la, lb)...); strings.TrimSpace(out) != "" {
		t.Fatalf("rsync finds differences between %s and %s:\n%s", a, b, out)
	}
}

// checkpointedAtEnd says whether a run's debug log has a checkpoint at
// eof, the size of the whole copy: one that landed on the last completion.
func checkpointedAtEnd(r result, eof string) bool {
	return strings.Contains(r.stderr, `msg=checkpoint eof=`+eof+"\n")
}

// The reported short copy: a 16 MiB file, window 1, replies up to 2.5 s
// late. Runs until one had its checkpoint on the last completion (each
// does with a probability of about a half), and every run must be exact.
func TestE2ESlowCephFSFile(t *testing.T) {
	e := newSlowEnv(t, 2.5)
	e.write(t, "f", test.RandomData(11, 16<<20))
	landed := false
	for i := 0; i < 5 && !landed; i++ {
		dst := "c" + string(rune('0'+i))
		r := runCmd(t, nil, "cp", "-c", e.slow, "--window", "1", "--log-level", "debug", "--no-progress",
			"cephfs:"+e.path("f"), "cephfs:"+e.path(dst))
		if r.code != 0 {
			t.Fatalf("run %d: exit %d\n%s", i, r.code, r.stderr)
		}
		e.same(t, "f", dst)
		landed = checkpointedAtEnd(r, "16777216")
		t.Logf("run %d: checkpoint on the last completion: %v", i, landed)
	}
	if !landed {
		t.Fatal("no run had a checkpoint on its last completion: the condition under test never happened")
	}
}

// A tree (files of one and several objects, a partial tail, a symlink, a
// nested directory) copied and then migrated to another data pool, slow.
func TestE2ESlowCephFSTreeAndMigrate(t *testing.T) {
	e := newSlowEnv(t, 1.5)
	e.m.MakeDir(e.path("src"), 0o755)
	e.m.MakeDir(e.path("src/sub"), 0o750)
	e.write(t, "src/f16", test.RandomData(12, 16<<20))
	e.write(t, "src/sub/g", test.RandomData(13, 9<<20+4097))
	e.write(t, "src/sub/small", []byte("small"))
	e.m.Symlink("f16", e.path("src/link"))
	r := runCmd(t, nil, "cp", "-c", e.slow, "-r", "--window", "1", "--files", "2", "--log-level", "debug", "--no-progress",
		"cephfs:"+e.path("src"), "cephfs:"+e.path("dst"))
	if r.code != 0 {
		t.Fatalf("cp -r: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "msg=checkpoint") {
		t.Fatalf("no checkpoint landed during a slow tree copy:\n%s", r.stderr)
	}
	e.same(t, "src", "dst")

	// migrate the copy; the source tree is the reference.
	r = runCmd(t, nil, "migrate", "-c", e.slow, "--pool", "cephfs_data2", "--window", "1", "--files", "2", "--log-level", "debug",
		"--no-progress", "cephfs:"+e.path("dst"))
	if r.code != 0 {
		t.Fatalf("migrate: exit %d\n%s", r.code, r.stderr)
	}
	// A migrate renames files over their originals, which moves their
	// directories' mtimes (it leaves directories alone).
	e.same(t, "src", "dst", "--omit-dir-times")
	for _, f := range []string{"dst/f16", "dst/sub/g", "dst/sub/small"} {
		if v, err := e.m.GetXattr(e.path(f), "ceph.file.layout.pool"); err != nil || string(v) != "cephfs_data2" {
			t.Fatalf("%s: pool %q, %v; want cephfs_data2", f, v, err)
		}
	}
}

// A slow copy that fails part-way (every copy-from failing with EIO from
// the moment a checkpoint was recorded), then --resume, slow too. The
// copy is stopped (SIGSTOP) at its first checkpoint while the fault is
// put in place, and goes on only then: so the fault lands mid-copy however
// long the cluster takes to apply it (seen in CI under load: the copy
// ended before the OSDs had the option).
func TestE2ESlowCephFSFailureThenResume(t *testing.T) {
	e := newSlowEnv(t, 1.0)
	const size = 40 << 20 // 10 objects of 4 MiB
	e.write(t, "f", test.RandomData(14, size))
	run := startCmd(t, nil, "cp", "-c", e.slow, "--window", "1", "--log-level", "debug", "--no-progress",
		"cephfs:"+e.path("f"), "cephfs:"+e.path("c"))
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(run.log.String(), "msg=checkpoint") {
		if !run.running() || time.Now().After(deadline) {
			t.Fatalf("no checkpoint before the copy ended\n%s", run.log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := run.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// At most the copy-from in flight completes once it goes on: at
	// least one more must be left for the fault to fail.
	if eof := lastCheckpoint(t, run.log.String()); eof > size-2*(4<<20) {
		run.cmd.Process.Signal(syscall.SIGCONT)
		t.Fatalf("the copy was at EOF %d of %d when stopped: too far for the fault to land mid-copy", eof, size)
	}
	test.InjectCopyFromError(t, true)
	if err := run.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	r := run.wait(t, 2*time.Minute)
	test.InjectCopyFromError(t, false)
	// Exit 1: the prefix is kept in the staging file for --resume, but
	// nothing was put in place.
	if r.code != 1 || !strings.Contains(r.stderr, "EIO") || !strings.Contains(r.stderr, "--resume continues") {
		t.Fatalf("exit %d, want 1 with EIO and the staging file kept for --resume\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(e.local("c")); !os.IsNotExist(err) {
		t.Fatalf("a failed copy is visible under its name: %v", err)
	}
	kept := e.recordedEOF(t, ".radoscp.c")
	if kept == 0 {
		t.Fatal("the failed copy recorded no prefix to resume from")
	}
	test.Run(t, "cmp", "-n", strconv.FormatUint(kept, 10), e.local("f"), e.local(".radoscp.c"))
	r = runCmd(t, nil, "cp", "-c", e.slow, "--window", "1", "--resume", "--json", "cephfs:"+e.path("f"), "cephfs:"+e.path("c"))
	if r.code != 0 || !strings.Contains(r.stdout, `"resumed":true`) {
		t.Fatalf("resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	e.same(t, "f", "c")
}

// A striped object copied slow, read back with rados --striper get.
func TestE2ESlowStriper(t *testing.T) {
	conf := test.Conf(t)
	slow := test.SlowConf(t, 1.0)
	name, data := makeStriperSource(t, conf, "radoscp-a", 6<<20+12345)
	dst := test.UniqueName(t)
	t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
	r := runCmd(t, nil, "cp", "-c", slow, "--window", "2", "--log-level", "debug", "--no-progress",
		"striper:radoscp-a/"+name, "striper:radoscp-b/"+dst)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "msg=checkpoint") {
		t.Fatalf("no checkpoint landed during the slow copy:\n%s", r.stderr)
	}
	size, got := striperRead(t, conf, "radoscp-b", dst)
	if size != uint64(len(data)) {
		t.Fatalf("rados --striper stat: %d bytes, want %d", size, len(data))
	}
	test.Equal(t, "rados --striper get of the copy", got, data)
}

// syncBuffer is a buffer a test may read while a command writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// lastCheckpoint is the EOF of the last "msg=checkpoint eof=N" line of a
// debug log.
func lastCheckpoint(t *testing.T, log string) uint64 {
	t.Helper()
	i := strings.LastIndex(log, "msg=checkpoint eof=")
	if i < 0 {
		t.Fatalf("no checkpoint in the log:\n%s", log)
	}
	f := strings.Fields(log[i+len("msg=checkpoint eof="):])
	eof, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		t.Fatalf("checkpoint line %q: %v", log[i:], err)
	}
	return eof
}
