package fscopy_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// A tree copy into a directory under a CephFS quota (set with setfattr
// through ceph-fuse, on an ancestor of the target) stops at the first
// file the quota refuses, as cp -a through a client would refuse it, with
// one error naming the quota directory and its quota; what it placed
// stays within the quota (summed by ceph-fuse), and what it refused
// leaves no object in the data pool (rados ls). Copy-from bypasses the
// client that enforces quotas, and the rstats lag: without its own
// check the copy placed the whole tree.
func TestTreeCopyStopsAtDirectoryQuota(t *testing.T) {
	for _, c := range []struct {
		name         string
		quota, value string
		files, size  int
		want         string
	}{
		{"max_bytes", "ceph.quota.max_bytes", "12000000", 6, 5<<20 + 17, "ceph.quota.max_bytes=12000000"},
		{"max_files", "ceph.quota.max_files", "5", 8, 1000, "ceph.quota.max_files=5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			eachClient(t, func(t *testing.T, slow float64) {
				e := newEnv(t)
				fuse := test.FuseMount(t)
				src, q := e.path("src"), e.path("q")
				e.mkdirs(t, src, q, q+"/into")
				for i := range c.files {
					e.write(t, fmt.Sprintf("%s/f%d", src, i), nil, 0o644, map[uint64][]byte{0: test.RandomData(uint64(i), c.size)})
				}
				test.Run(t, "setfattr", "-n", c.quota, "-v", c.value, fuse+q)
				enqueued := mdsCounters(t)["strays_enqueued"]
				copier := mountCopier(t, slow)
				written := &dstInodes{}
				var reports []fscopy.Report
				o := fscopy.Options{Copy: copyOpts(4), WrapObjects: written.wrap}
				_, err := copier.copier(t, o, &reports).Copy(ctx, src, q+"/into", true)
				if !errors.Is(err, fscopy.ErrDirQuota) || !errors.Is(err, syscall.EDQUOT) {
					t.Fatalf("copy of %d files into %s with %s=%s: %v, want EDQUOT", c.files, q, c.quota, c.value, err)
				}
				if msg := err.Error(); !strings.Contains(msg, "cephfs:"+q+" ") || !strings.Contains(msg, c.want) {
					t.Fatalf("the error does not name the quota directory %s and %s: %v", q, c.want, err)
				}
				failed := 0
				for _, r := range reports {
					if r.Outcome == fscopy.Failed {
						failed++
					}
				}
				if failed != 1 {
					t.Fatalf("%d paths failed, want 1: the copy stops at the first EDQUOT (%v)", failed, reports)
				}
				// What a client sees under the quota directory.
				var bytes, entries int
				for _, l := range strings.Fields(test.Run(t, "find", fuse+q, "-mindepth", "1", "-printf", "%y:%s\n")) {
					kind, size, _ := strings.Cut(l, ":")
					n, _ := strconv.Atoi(size)
					if kind == "f" {
						bytes += n
					}
					entries++
				}
				max, _ := strconv.Atoi(c.value)
				if c.name == "max_bytes" && bytes > max || c.name == "max_files" && entries > max {
					t.Fatalf("%d bytes in %d entries under %s, over its %s=%s", bytes, entries, q, c.quota, c.value)
				}
				if strings.Contains(test.Run(t, "ls", "-aR", fuse+q), fscopy.StagingPrefix) {
					t.Fatalf("a staging file is left under %s", q)
				}
				t.Logf("%d bytes, %d entries under %s; ceph.dir.rbytes %s", bytes, entries, q,
					strings.TrimSpace(test.Run(t, "getfattr", "--only-values", "-n", "ceph.dir.rbytes", fuse+q)))
				live := map[uint64]bool{}
				for _, ino := range strings.Fields(test.Run(t, "find", fuse+q, "-type", "f", "-printf", "%i\n")) {
					n, _ := strconv.ParseUint(ino, 10, 64)
					live[n] = true
				}
				for _, ino := range written.list() {
					if !live[ino] {
						assertPurged(t, ino, enqueued)
					}
				}
			})
		})
	}
}

// A copier killed in the middle of a big file's copy leaves its staging
// file; removed the ordinary way (rm through ceph-fuse), it takes every
// object of the copy with it: once the MDS has purged it, the data pool
// holds no object of its inode. A staging file sized to what was
// published only (0 here) left the copied objects past its size forever.
func TestRemovedStagingFileLeavesNoObjects(t *testing.T) {
	if src := os.Getenv("FSCOPY_KILL_SRC"); src != "" {
		killChild(t, src, os.Getenv("FSCOPY_KILL_DST"))
		return
	}
	eachClient(t, func(t *testing.T, slow float64) {
		conf := test.FS(t)
		if slow > 0 {
			conf = test.SlowConf(t, slow)
		}
		e := newEnv(t)
		fuse := test.FuseMount(t)
		src, dst := e.path("src"), e.path("dst")
		e.write(t, src, nil, 0o644, map[uint64][]byte{0: test.RandomData(7, 40<<20+17)})
		cmd := exec.Command(os.Args[0], "-test.run", "^TestRemovedStagingFileLeavesNoObjects$", "-test.v")
		cmd.Env = append(os.Environ(), "FSCOPY_KILL_SRC="+src, "FSCOPY_KILL_DST="+dst, test.EnvConf+"="+conf)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 86 {
			t.Fatalf("the copier did not exit from the hook mid-copy (%v):\n%s", err, out)
		}
		test.EvictClient(t, cmd.Process.Pid)
		staging := fuse + e.path(fscopy.StagingPrefix+"dst")
		ino, err := strconv.ParseUint(strings.TrimSpace(test.Run(t, "stat", "-c", "%i", staging)), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		objs := objectsOf(t, ino)
		if len(objs) < 4 {
			t.Fatalf("the killed copy left objects %v of its staging file, want at least 4 (object 0 and three copied)", objs)
		}
		t.Logf("staging file %s: size %s, objects %v", staging, strings.TrimSpace(test.Run(t, "stat", "-c", "%s", staging)), objs)
		enqueued := mdsCounters(t)["strays_enqueued"]
		test.Run(t, "rm", staging)
		assertPurged(t, ino, enqueued)
	})
}

// killChild copies src to dst, one object at a time, and exits with 86,
// without unmounting, as the copy-from of object 4 is submitted.
func killChild(t *testing.T, src, dst string) {
	conn, fs := test.MountFS(t)
	e := &env{conn: conn, fs: fs}
	o := fscopy.Options{Copy: copyOpts(1), WrapObjects: func(p store.Objects) store.Objects { return &killAt{Objects: p, at: 4} }}
	r := e.copier(t, o, nil).CopyFile(ctx, src, dst)
	t.Fatalf("the copy returned (%v) without the hook's exit", r.Err)
}

// killAt exits the process as the copy-from of object number at (of
// any inode) is submitted.
type killAt struct {
	store.Objects
	at uint64
}

func (k *killAt) Submit(dstOid string, src store.Location, o store.CopyOptions) (store.Pending, error) {
	var ino, obj uint64
	if _, err := fmt.Sscanf(dstOid, "%x.%08x", &ino, &obj); err == nil && obj >= k.at {
		os.Exit(86)
	}
	return k.Objects.Submit(dstOid, src, o)
}

// dstInodes records the inodes whose objects a copy wrote or copied into.
type dstInodes struct {
	mu   sync.Mutex
	inos map[uint64]bool
}

func (d *dstInodes) wrap(p store.Objects) store.Objects { return &recordWrites{Objects: p, d: d} }

func (d *dstInodes) note(oid string) {
	var ino, obj uint64
	if _, err := fmt.Sscanf(oid, "%x.%08x", &ino, &obj); err != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.inos == nil {
		d.inos = map[uint64]bool{}
	}
	d.inos[ino] = true
}

func (d *dstInodes) list() []uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	var l []uint64
	for ino := range d.inos {
		l = append(l, ino)
	}
	return l
}

type recordWrites struct {
	store.Objects
	d *dstInodes
}

func (r *recordWrites) Submit(dstOid string, src store.Location, o store.CopyOptions) (store.Pending, error) {
	r.d.note(dstOid)
	return r.Objects.Submit(dstOid, src, o)
}

func (r *recordWrites) Write(oid string, data []byte, off uint64) error {
	r.d.note(oid)
	return r.Objects.Write(oid, data, off)
}

// objectsOf lists the data pool's objects of inode ino (rados ls).
func objectsOf(t *testing.T, ino uint64) []string {
	t.Helper()
	out, err := test.RadosCLI(test.Conf(t), "-p", "cephfs_data", "ls")
	if err != nil {
		t.Fatalf("rados ls: %v\n%s", err, out)
	}
	var objs []string
	prefix := fmt.Sprintf("%x.", ino)
	for _, l := range strings.Fields(string(out)) {
		if strings.HasPrefix(l, prefix) {
			objs = append(objs, l)
		}
	}
	return objs
}

// assertPurged waits until the data pool holds no object of the removed
// inode ino, and fails if objects of ino are still there once the MDS
// has purged what it was going to: more strays enqueued for purging than
// the enqueued count before (taken before ino was removed), and its
// purge queue idle. Those objects are never removed. The wait is bounded.
func assertPurged(t *testing.T, ino uint64, enqueuedBefore int64) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		objs := objectsOf(t, ino)
		if len(objs) == 0 {
			return
		}
		idle := mdsPurged(t, enqueuedBefore)
		if idle || time.Now().After(deadline) {
			if idle {
				// Read once more: the last purge may have ended
				// between the listing and the counters.
				if objs = objectsOf(t, ino); len(objs) == 0 {
					return
				}
			}
			t.Fatalf("removed inode %x left %d objects in the data pool (MDS purge done: %v): %v", ino, len(objs), idle, objs)
		}
		time.Sleep(200 * time.Millisecond) // polling interval, bounded by the deadline
	}
}

// mdsCounters is the MDS's stray and purge queue counters.
func mdsCounters(t *testing.T) map[string]int64 {
	t.Helper()
	var dump map[string]map[string]any
	if err := json.Unmarshal([]byte(test.Ceph(t, "tell", "mds.a", "perf", "dump")), &dump); err != nil {
		t.Fatal(err)
	}
	c := map[string]int64{}
	for _, section := range []string{"mds_cache", "purge_queue"} {
		for k, v := range dump[section] {
			if f, ok := v.(float64); ok {
				c[k] = int64(f)
			}
		}
	}
	return c
}

// mdsPurged reports whether the MDS has enqueued strays for purging since
// its count was enqueuedBefore, and purged all it enqueued.
func mdsPurged(t *testing.T, enqueuedBefore int64) bool {
	c := mdsCounters(t)
	return c["strays_enqueued"] > enqueuedBefore && c["num_strays_enqueuing"] == 0 && c["num_strays_delayed"] == 0 &&
		c["pq_executing"] == 0 && c["pq_item_in_journal"] == 0
}
