package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/test"
)

// fsEnv is the test cluster's CephFS mounted by the test, with a directory
// of the test's own.
type fsEnv struct {
	conf string
	m    *gocephfs.MountInfo
	dir  string
}

func newFSEnv(t *testing.T) *fsEnv {
	t.Helper()
	conf := test.FS(t)
	m := test.Mount(t)
	return &fsEnv{conf: conf, m: m, dir: test.FSDir(t, m)}
}

func (e *fsEnv) path(p string) string { return path.Join(e.dir, p) }

func (e *fsEnv) write(t *testing.T, p string, data []byte) {
	t.Helper()
	test.WriteFile(t, e.m, e.path(p), data)
}

// read reads p, or reports that it does not exist.
func (e *fsEnv) read(t *testing.T, p string) ([]byte, bool) {
	t.Helper()
	return test.ReadFile(t, e.m, e.path(p))
}

func (e *fsEnv) names(t *testing.T, dir string) []string {
	t.Helper()
	return test.Names(t, e.m, e.path(dir))
}

func jsonLines(t *testing.T, r result) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line %q is not JSON: %v\nstderr: %s", line, err, r.stderr)
		}
		out = append(out, m)
	}
	return out
}

func TestE2ECephFSTree(t *testing.T) {
	e := newFSEnv(t)
	big := test.RandomData(1, 9<<20+3)
	e.m.MakeDir(e.path("src"), 0o755)
	e.m.MakeDir(e.path("src/sub"), 0o700)
	e.write(t, "src/big", big)
	e.write(t, "src/sub/small", []byte("hello"))
	e.m.Symlink("big", e.path("src/link"))
	r := runCmd(t, nil, "cp", "-c", e.conf, "-r", "--json", "--files", "2", "cephfs:"+e.path("src"), "cephfs:"+e.path("dst"))
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	lines := jsonLines(t, r)
	sum := lines[len(lines)-1]
	if sum["summary"] != true || sum["files"] != 2.0 || sum["symlinks"] != 1.0 || sum["dirs"] != 2.0 || sum["bytes"] != float64(len(big)+5) {
		t.Fatalf("summary line %v", sum)
	}
	for _, l := range lines[:len(lines)-1] {
		if l["src"] == e.path("src/big") {
			res := l["result"].(map[string]any)
			if l["outcome"] != "copied" || res["objects"] != 1.0 {
				t.Fatalf("big: %v; want copied with object 1 by copy-from (0 and the tail through the client)", l)
			}
		}
	}
	if got, _ := e.read(t, "dst/big"); !bytes.Equal(got, big) {
		t.Fatal("dst/big differs from src/big")
	}
	if got, _ := e.read(t, "dst/sub/small"); string(got) != "hello" {
		t.Fatalf("dst/sub/small = %q", got)
	}
	if target, err := e.m.Readlink(e.path("dst/link")); err != nil || target != "big" {
		t.Fatalf("dst/link -> %q, %v", target, err)
	}
}

// kill -9 at random moments of a slowed-down copy: the destination is
// absent or complete, never partial; a rerun with --resume finishes it and
// leaves no staging file.
func TestE2ECephFSKillAndResume(t *testing.T) {
	e := newFSEnv(t)
	data := test.RandomData(2, 24<<20+999)
	e.write(t, "src", data)
	trials := 4
	if os.Getenv("RADOSCP_LONG") != "" {
		trials = 40
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3))
	interrupted := 0
	for i := range trials {
		dst := "dst" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		// Every OSD reply delayed by up to 0.6 s, one copy at a time: the
		// copy takes several seconds, and the kill lands inside it.
		cmd := exec.Command(binary, "cp", "-c", e.conf, "--window", "1", "--no-progress", "cephfs:"+e.path("src"), "cephfs:"+e.path(dst))
		cmd.Env = append(os.Environ(), "CEPH_ARGS=--ms_inject_delay_type=osd --ms_inject_delay_probability=1 --ms_inject_delay_max=0.6")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wait := time.Duration(200+rng.IntN(2500)) * time.Millisecond
		time.Sleep(wait)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		// Until the MDS gives the dead client's session up (session_timeout,
		// 30 s or more), its capabilities block the rerun; an operator
		// would evict it as the test does.
		test.EvictClient(t, cmd.Process.Pid)
		got, ok := e.read(t, dst)
		if ok && !bytes.Equal(got, data) {
			t.Fatalf("trial %d (killed after %v): %s is visible and not the source (%d bytes)", i, wait, dst, len(got))
		}
		if !ok {
			interrupted++
		}
		if got, ok := e.read(t, ".radoscp."+dst); ok {
			// What other clients read of the staging file is a
			// true prefix. Its size may be below the recorded EOF:
			// the EOF is recorded (an MDS request) before the size
			// grows, and a grown size can live only in the killed
			// client. The data up to the record is in the objects
			// all the same: the resume below continues from the
			// record, and its result must equal the source.
			eof := e.recordedEOF(t, ".radoscp."+dst)
			n := min(eof, uint64(len(got)))
			if !bytes.Equal(got[:n], data[:n]) {
				t.Fatalf("trial %d: staging file's first %d bytes (recorded EOF %d, size %d) are not the source's", i, n, eof, len(got))
			}
			if eof > uint64(len(got)) {
				t.Logf("trial %d: recorded EOF %d, size %d after the kill", i, eof, len(got))
			}
		}
		r := runCmd(t, nil, "cp", "-c", e.conf, "--resume", "--json", "cephfs:"+e.path("src"), "cephfs:"+e.path(dst))
		if r.code != 0 {
			t.Fatalf("trial %d: resume: exit %d\nstdout: %s\nstderr: %s", i, r.code, r.stdout, r.stderr)
		}
		if got, _ := e.read(t, dst); !bytes.Equal(got, data) {
			t.Fatalf("trial %d: resumed copy differs", i)
		}
		lines := jsonLines(t, r)
		t.Logf("trial %d: killed after %v; rerun: resumed %v from %v", i, wait, lines[0]["resumed"], lines[0]["resumed_from"])
	}
	if interrupted == 0 {
		t.Fatal("no trial interrupted a copy: the copies are too fast for the kills")
	}
	for _, n := range e.names(t, "") {
		if strings.HasPrefix(n, ".radoscp.") {
			t.Errorf("staging file %s left behind", n)
		}
	}
}

func (e *fsEnv) recordedEOF(t *testing.T, p string) uint64 {
	v, err := e.m.GetXattr(e.path(p), "user.radoscp.eof")
	if err != nil {
		return 0 // killed before the record was written: nothing published
	}
	var n uint64
	for _, c := range string(v) {
		n = n*10 + uint64(c-'0')
	}
	return n
}

func TestE2EMigrate(t *testing.T) {
	e := newFSEnv(t)
	data := test.RandomData(3, 5<<20)
	e.write(t, "f", data)
	for _, tc := range []struct{ pool, msg string }{
		{"nosuchpool-e2e", "nosuchpool-e2e"},
		{"radoscp-a", "not a data pool"},
	} {
		r := runCmd(t, nil, "migrate", "-c", e.conf, "--pool", tc.pool, "cephfs:"+e.dir)
		if r.code != 2 || !strings.Contains(r.stderr, tc.msg) {
			t.Fatalf("--pool %s: exit %d, stderr %q; want 2 naming %q", tc.pool, r.code, r.stderr, tc.msg)
		}
	}
	if n := e.names(t, ""); len(n) != 1 {
		t.Fatalf("a refused migrate left %v", n)
	}
	r := runCmd(t, nil, "migrate", "-c", e.conf, "--pool", "cephfs_data2", "--json", "cephfs:"+e.dir)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	v, err := e.m.GetXattr(e.path("f"), "ceph.file.layout.pool")
	if err != nil || string(v) != "cephfs_data2" {
		t.Fatalf("migrated file's pool %q, %v", v, err)
	}
	if got, _ := e.read(t, "f"); !bytes.Equal(got, data) {
		t.Fatal("migrated file differs")
	}
}

// A single file's copy has only its window in flight, so --window up to
// the bound of 128 is taken whatever --files says (the bound on --files
// times the window is a tree's).
func TestE2ECephFSOneFileWideWindow(t *testing.T) {
	e := newFSEnv(t)
	data := bytes.Repeat([]byte("w"), 3<<20)
	e.write(t, "f", data)
	r := runCmd(t, nil, "cp", "-c", e.conf, "--window", "128", "--files", "16", "cephfs:"+e.path("f"), "cephfs:"+e.path("g"))
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	if got, ok := e.read(t, "g"); !ok || !bytes.Equal(got, data) {
		t.Fatal("the copy differs from its source")
	}
}

// Eight files of 32 objects with --files 8 --window 32 ask for 256
// copy-froms at once: the engine keeps them, over all the files, within
// window.MaxInFlight (half an OSD's admission limit), and the run says
// how many it had. With replies delayed, the files' windows overlap: more
// than two files' worth were in flight at once, so the shared bound, not
// one file's window, is what held them.
func TestE2ECephFSInFlightBoundAcrossFiles(t *testing.T) {
	e := newFSEnv(t)
	for _, tc := range []struct {
		name    string
		conf    string
		atLeast float64
	}{
		{"fast", e.conf, 1},
		// Replies up to 0.5 s late keep each file's 32 copy-froms in
		// flight long enough that the files' windows overlap however the
		// MDS staggers their starts.
		{"slow", test.SlowConf(t, 0.5), 65},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "src-" + tc.name
			e.m.MakeDir(e.path(src), 0o755)
			if err := e.m.SetXattr(e.path(src), "ceph.dir.layout", []byte("stripe_unit=65536 stripe_count=1 object_size=65536"), 0); err != nil {
				t.Fatal(err)
			}
			files := map[string][]byte{}
			for i := range 8 {
				name := "f" + strconv.Itoa(i)
				files[name] = test.RandomData(uint64(40+i), 32<<16)
				e.write(t, src+"/"+name, files[name])
			}
			r := runCmd(t, nil, "cp", "-c", tc.conf, "--json", "-r", "--files", "8", "--window", "32",
				"cephfs:"+e.path(src), "cephfs:"+e.path("copy-"+tc.name))
			if r.code != 0 {
				t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
			}
			lines := jsonLines(t, r)
			sum := lines[len(lines)-1]
			peak, _ := sum["peak_in_flight"].(float64)
			if peak < tc.atLeast || peak > 128 {
				t.Fatalf("peak_in_flight %v; want %v to 128 (summary %v)", sum["peak_in_flight"], tc.atLeast, sum)
			}
			t.Logf("%v copy-froms in flight at most", peak)
			for name, data := range files {
				if got, ok := e.read(t, "copy-"+tc.name+"/"+name); !ok || !bytes.Equal(got, data) {
					t.Fatalf("%s: the copy differs from its source", name)
				}
			}
		})
	}
}

// Bad CephFS requests exit 2, naming the problem, and write nothing.
func TestE2ECephFSBadInput(t *testing.T) {
	e := newFSEnv(t)
	e.m.MakeDir(e.path("d"), 0o755)
	e.write(t, "d/f", []byte("x"))
	if err := e.m.Symlink("d", e.path("dlink")); err != nil {
		t.Fatal(err)
	}
	src, dir := "cephfs:"+e.path("d/f"), "cephfs:"+e.path("d")
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"dir-without-r", []string{dir, "cephfs:" + e.path("copy")}, "give -r"},
		{"into-itself", []string{"-r", dir, "cephfs:" + e.path("d/sub")}, "into itself"},
		{"into-itself-by-symlink", []string{"-r", dir, "cephfs:" + e.path("dlink/sub")}, "is inside it"},
		{"target-holds-source", []string{"-r", "--delete", dir + "/", "cephfs:" + e.path("")}, "write over its own source"},
		{"missing-source", []string{"cephfs:" + e.path("nope"), "cephfs:" + e.path("copy")}, "nope"},
		{"missing-parent", []string{src, "cephfs:" + e.path("no/such/dir")}, "no/such"},
		{"files-0", []string{"--files", "0", src, "cephfs:" + e.path("copy")}, "--files 0: expected 1 to 128"},
		{"files-over", []string{"-r", "--files", "129", dir, "cephfs:" + e.path("copy")}, "--files 129: expected 1 to 128"},
		{"window-over", []string{"--window", "129", src, "cephfs:" + e.path("copy")}, "from 0 to 128"},
		{"sync", []string{"--sync", "sometimes", src, "cephfs:" + e.path("copy")}, "sometimes"},
		{"mixed", []string{src, "rados:radoscp-b/x"}, "cannot copy between"},
		{"length", []string{"--length", "1M", src, "cephfs:" + e.path("copy")}, "--length"},
		{"relative", []string{"cephfs:d/f", "cephfs:" + e.path("copy")}, "cephfs:d/f"},
		{"two-fs", []string{src, "cephfs:other:" + e.path("copy")}, "between file systems"},
		{"layout", []string{"--stripe-unit", "1000", src, "cephfs:" + e.path("copy")}, "1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCmd(t, nil, append([]string{"cp", "-c", e.conf}, tc.args...)...)
			if r.code != 2 || !strings.Contains(r.stderr, tc.msg) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
				t.Fatalf("exit %d, stderr %q; want 2 and one line naming %q", r.code, r.stderr, tc.msg)
			}
		})
	}
	if n := e.names(t, ""); len(n) != 2 { // d and dlink
		t.Fatalf("refused copies left %v", n)
	}
	if n := e.names(t, "d"); len(n) != 1 {
		t.Fatalf("refused copies left %v in d", n)
	}
	r := runCmd(t, nil, "cp", "-c", e.conf, "--resume", "--length", "1M", "rados:radoscp-a/x", "rados:radoscp-b/y")
	if r.code != 2 || !strings.Contains(r.stderr, "--resume") {
		t.Fatalf("--resume on rados: exit %d, %q", r.code, r.stderr)
	}
}

// A destination inside a snapshot, also through a symlink, is read-only,
// migrate cannot replace files there, and a source must be inside one
// snapshot that exists: exit 2, one line naming the path, nothing
// written. (Copies from snapshots:
// snapshot_e2e_test.go.)
func TestE2ESnapshotPathsRefused(t *testing.T) {
	e := newFSEnv(t)
	e.m.MakeDir(e.path("sv"), 0o755)
	e.write(t, "sv/f", test.RandomData(21, 5<<20))
	if err := e.m.MakeDir(e.path("sv/.snap/s1"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.m.RemoveDir(e.path("sv/.snap/s1")) })
	for link, target := range map[string]string{"snaplink": "sv/.snap/s1", "snapdirlink": "sv/.snap"} {
		if err := e.m.Symlink(target, e.path(link)); err != nil {
			t.Fatal(err)
		}
	}
	snapFile, snapDir := "cephfs:"+e.path("sv/.snap/s1/f"), "cephfs:"+e.path("sv/.snap/s1")
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"snapshot directory", []string{"cp", "-r", "cephfs:" + e.path("sv/.snap"), "cephfs:" + e.path("fromsnap")}, e.path("sv/.snap") + " is the snapshot directory"},
		{"no such snapshot", []string{"cp", "cephfs:" + e.path("sv/.snap/nosuch/f"), "cephfs:" + e.path("fromsnap")}, "no snapshot cephfs:" + e.path("sv/.snap/nosuch")},
		{"into a snapshot", []string{"cp", "cephfs:" + e.path("sv/f"), "cephfs:" + e.path("sv/.snap/s1/g")}, "snapshots are read-only"},
		{"tree into a snapshot", []string{"cp", "-r", "cephfs:cephfs:" + e.path("sv"), "cephfs:cephfs:" + e.path("sv/.snap/s1/t")}, "snapshots are read-only"},
		{"into a snapshot through a symlink", []string{"cp", "cephfs:" + e.path("sv/f"), "cephfs:" + e.path("snaplink/g")}, "through a symlink; snapshots are read-only"},
		{"tree into a snapshot through a symlink", []string{"cp", "-r", "cephfs:" + e.path("sv") + "/", "cephfs:" + e.path("snaplink/t")}, "through a symlink; snapshots are read-only"},
		{"into the snapshot directory through a symlink", []string{"cp", "-r", "cephfs:" + e.path("sv"), "cephfs:" + e.path("snapdirlink/t")}, "through a symlink; snapshots are read-only"},
		{"migrate", []string{"migrate", "--pool", "cephfs_data2", snapDir}, "snapshots are read-only"},
		{"--snap", []string{"cp", "--snap", "s1", snapFile, "cephfs:" + e.path("fromsnap")}, "a CephFS snapshot is a path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCmd(t, nil, append([]string{tc.args[0], "-c", e.conf}, tc.args[1:]...)...)
			if r.code != 2 || !strings.Contains(r.stderr, tc.msg) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
				t.Fatalf("exit %d, stderr %q; want 2 and one line naming %q", r.code, r.stderr, tc.msg)
			}
		})
	}
	if n := e.names(t, ""); len(n) != 3 { // sv and the links
		t.Fatalf("refused copies left %v", n)
	}
	if n := e.names(t, "sv/.snap/s1"); len(n) != 1 {
		t.Fatalf("the snapshot now holds %v", n)
	}
}
