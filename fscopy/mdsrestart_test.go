package fscopy_test

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

// A file put in place keeps its source's times through an MDS restart or
// failover that comes after it was settled and let go, while the MDS holds
// a writable range of the copier's client on it: the MDS, finding the
// client without caps on it at reconnect, recovers the file and moves its
// mtime to its object's, the copy's write (as seen in CI, see
// reconnect.go). The fault is made to land there: once the first file is
// settled, a client opens it for writing and closes it, the test waits
// until the MDS shows that client's range, and stops the MDS; that client
// too reconnects without a cap on the file. (libcephfs gives no way to
// make the copier's own client take a range without writing: it opens
// from the write caps it may still hold, without asking the MDS.) The
// MDS recovers the file exactly as in CI ("has range ... but no cap",
// "RecoveryQueue::_recovered" in its log, the mtime moved to the copy's
// write). The copy must notice the reconnect and set the file's times
// again; a client that has never seen the copies checks them. Fast and
// slow client, restart and failover, tree copy and migrate.
func TestSettleMDSFaultAfterTheSettle(t *testing.T) {
	for _, c := range []struct {
		name     string
		failover bool
		slow     float64
		migrate  bool
	}{
		{"restart", false, 0, false},
		{"restart-slow", false, 0.3, false},
		{"failover", true, 0, false},
		{"failover-slow", true, 0.3, false},
		{"failover-slow-migrate", true, 0.3, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			if c.slow > 0 {
				// The copier's client only; the daemons and the
				// other clients use the cluster's own conf.
				conf := test.Conf(t)
				t.Setenv(test.EnvConf, test.SlowConf(t, c.slow))
				e.conn, e.fs = test.MountFS(t)
				os.Setenv(test.EnvConf, conf)
			}
			src, dst := e.path("src"), e.path("dst")
			if err := e.fs.Mkdir(src, 0o755); err != nil {
				t.Fatal(err)
			}
			// Written by a client that unmounts: no range of its own
			// is left on the sources for the MDS to recover.
			w := test.Mount(t)
			const files = 3
			for i := range files {
				test.WriteFile(t, w, fmt.Sprintf("%s/f%d", src, i), test.RandomData(uint64(40+i), 2<<20+i))
			}
			w.Unmount()
			want := map[string]gocephfs.CephStatx{}
			for i := range files {
				want[fmt.Sprintf("f%d", i)] = statx(t, e.other, fmt.Sprintf("%s/f%d", src, i))
			}
			time.Sleep(1100 * time.Millisecond) // the copy's writes get later mtimes than the sources
			if c.failover {
				test.StartStandbyMDS(t)
			}
			var o fscopy.Options
			o.Copy = copyOpts(1)
			o.Files = 1
			// The fault lands when the other client, reconnecting, has
			// dropped the file from its cache (it then reports no cap on
			// it): usually, not always (seen once in CI, failover). So
			// it is made again on the next settled file until the MDS is
			// seen recovering one (its mtime moved to the copy's write,
			// read by a client that has never seen it), at most on
			// every file; the copy sets times again only at its end.
			var mu sync.Mutex
			ranged, landed, tries := false, false, 0
			var h fscopy.Hooks
			h.AfterSettle = func(p string) {
				mu.Lock()
				defer mu.Unlock()
				if landed {
					return
				}
				tries++
				f, err := e.other.Open(p, os.O_WRONLY, 0)
				if err != nil {
					t.Error(err)
					return
				}
				st := statx(t, e.other, p)
				f.Close()
				ino := uint64(st.Inode)
				// The active MDS of this try: after a failover it is
				// the one that was standing by, and a later try that
				// stopped the first one's would stop a standby, and
				// fault nothing.
				active := test.ActiveMDS(t)
				ranged = waitClientRange(t, active, ino) || ranged
				test.StopDaemon(t, "mds."+active)
				if c.failover {
					test.WaitMDSActive(t)
				}
				test.StartDaemon(t, "mds."+active)
				test.WaitMDSActive(t)
				landed = mtimeMoves(t, p, want[path.Base(p)].Mtime)
			}
			var sum fscopy.Summary
			var err error
			if c.migrate {
				dst, o.Pool = src, "cephfs_data2"
				sum, err = e.copierWith(t, o, nil, h).Migrate(ctx, src)
			} else {
				// Into an existing directory: each file through its
				// staging file, settled. (A new target's files are
				// neither: TestFreshTreeMDSFault.)
				if err := e.fs.Mkdir(dst, 0o755); err != nil {
					t.Fatal(err)
				}
				sum, err = e.copierWith(t, o, nil, h).Copy(ctx, src, dst, true)
				dst += "/src"
			}
			if err != nil {
				t.Fatal(err)
			}
			if !ranged || !landed {
				t.Fatalf("in %d tries the MDS showed a range on a settled file %v, and recovered one %v: the fault did not land where it should", tries, ranged, landed)
			}
			fresh := test.Mount(t) // a client that has never seen dst
			for name, s := range want {
				d := statx(t, fresh, dst+"/"+name)
				if d.Mtime != s.Mtime || d.Atime != s.Atime {
					t.Errorf("%s: mtime %v atime %v, the source's %v %v", name, d.Mtime, d.Atime, s.Mtime, s.Atime)
				}
			}
			if sum.TimesReset < 1 {
				t.Errorf("no file's times were set again (summary %+v): the MDS did not recover the file, or the copy did not notice", sum)
			}
			t.Logf("the fault landed on try %d; summary %+v", tries, sum)
		})
	}
}

func statx(t *testing.T, m *gocephfs.MountInfo, p string) gocephfs.CephStatx {
	t.Helper()
	st, err := m.Statx(p, gocephfs.StatxBasicStats, gocephfs.AtSymlinkNofollow)
	if err != nil {
		t.Fatalf("stat %s: %v", p, err)
	}
	return *st
}

// waitClientRange waits until mds.name shows a client range on inode ino
// (ceph daemon ... dump inode), for a few seconds at most.
// mtimeMoves reports whether the MDS recovers file p within 20 s: its
// mtime, read by a client that has never seen it, moves from src's.
func mtimeMoves(t *testing.T, p string, src gocephfs.Timespec) bool {
	fresh := test.Mount(t)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if st, err := fresh.Statx(p, gocephfs.StatxBasicStats, gocephfs.AtSymlinkNofollow); err == nil && st.Mtime != src {
			return true
		}
	}
	return false
}

func waitClientRange(t *testing.T, name string, ino uint64) bool {
	asok := filepath.Join(filepath.Dir(test.Conf(t)), "run", "mds."+name+".asok")
	// Up to 30 s: on a loaded machine the writer's caps take a while.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		out, err := exec.Command("ceph", "--admin-daemon", asok, "dump", "inode", fmt.Sprint(ino)).CombinedOutput()
		if err == nil && strings.Contains(string(out), `"client_ranges": [`) && !strings.Contains(string(out), `"client_ranges": []`) {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}
