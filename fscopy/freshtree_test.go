package fscopy_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

// slowCopier points e's copier client at a slow conf (OSD replies up to
// maxDelay s late); the other clients keep the cluster's.
func (e *env) slowCopier(t *testing.T, maxDelay float64) {
	conf := test.Conf(t)
	t.Setenv(test.EnvConf, test.SlowConf(t, maxDelay))
	e.conn, e.fs = test.MountFS(t)
	os.Setenv(test.EnvConf, conf)
}

// freshSource writes n small files (and with big, one of three objects)
// in src, through the other client, with modes of their own.
func (e *env) freshSource(t *testing.T, src string, n int, big bool) {
	t.Helper()
	if err := e.fs.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		e.write(t, fmt.Sprintf("%s/f%d", src, i), nil, 0o640+uint32(i%2), map[uint64][]byte{0: test.RandomData(uint64(70+i), 4<<10+i*997)})
	}
	if big {
		e.write(t, src+"/big", nil, 0o604, map[uint64][]byte{0: test.RandomData(69, 9<<20+17)})
	}
}

// assertSameTree checks, through a client that has never seen dst, that
// every file of src is in dst with its data, mode, owner, size and times.
func assertSameTree(t *testing.T, src, dst string) {
	t.Helper()
	fresh := test.Mount(t)
	names := test.Names(t, fresh, src)
	if got := test.Names(t, fresh, dst); strings.Join(got, ",") != strings.Join(names, ",") {
		t.Fatalf("%s has %v, the source %v", dst, got, names)
	}
	for _, n := range names {
		s, d := statx(t, fresh, src+"/"+n), statx(t, fresh, dst+"/"+n)
		if s.Size != d.Size || s.Mode != d.Mode || s.Uid != d.Uid || s.Gid != d.Gid || s.Mtime != d.Mtime || s.Atime != d.Atime {
			t.Errorf("%s: size %d mode %o owner %d:%d mtime %v atime %v; the source's %d %o %d:%d %v %v",
				n, d.Size, d.Mode, d.Uid, d.Gid, d.Mtime, d.Atime, s.Size, s.Mode, s.Uid, s.Gid, s.Mtime, s.Atime)
		}
		sd, _ := test.ReadFile(t, fresh, src+"/"+n)
		dd, _ := test.ReadFile(t, fresh, dst+"/"+n)
		assertEqual(t, dst+"/"+n, dd, sd)
	}
}

// A tree copy into a new target keeps every time through an MDS restart or
// failover that lands while the copy holds write caps (and a writable
// range at the MDS) on files it has copied and left in the staging tree
// with their times set in its caps, not yet flushed: the restart is made
// from the hook that runs once the first file is left, before it is even
// closed, after the MDS was seen holding the copier's range on it. The
// client sends its caps, dirty ones too, on reconnect; the MDS recovers
// nothing. A client that has never seen the copy checks the times.
func TestFreshTreeMDSFault(t *testing.T) {
	for _, c := range []struct {
		name     string
		failover bool
		slow     float64
	}{
		{"restart", false, 0},
		{"restart-slow", false, 0.3},
		{"failover", true, 0},
		{"failover-slow", true, 0.3},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			if c.slow > 0 {
				e.slowCopier(t, c.slow)
			}
			src, dst := e.path("src"), e.path("dst")
			e.freshSource(t, src, 4, false)
			time.Sleep(1100 * time.Millisecond) // the copy's writes get later mtimes than the sources
			if c.failover {
				test.StartStandbyMDS(t)
			}
			active := test.ActiveMDS(t)
			var o fscopy.Options
			o.Copy = copyOpts(1)
			o.Files = 1
			var once sync.Once
			ranged, staged := false, false
			var h fscopy.Hooks
			h.AfterSettle = func(p string) {
				once.Do(func() {
					st, err := e.fs.Lstat(p)
					if err != nil {
						t.Error(err)
						return
					}
					_, err = e.fs.Lstat(dst)
					staged = strings.Contains(p, "/.radoscp.dst/") && errors.Is(err, fs.ErrNotExist)
					ranged = waitClientRange(t, active, st.Ino)
					test.StopDaemon(t, "mds."+active)
					if c.failover {
						test.WaitMDSActive(t)
					}
					test.StartDaemon(t, "mds."+active)
					test.WaitMDSActive(t)
				})
			}
			sum, err := e.copierWith(t, o, nil, h).Copy(ctx, src, dst, true)
			if err != nil {
				t.Fatal(err)
			}
			if !ranged || !staged {
				t.Fatalf("the restart did not land mid-copy on a file left in the staging tree with the copier's range on it (range %v, in the staging tree %v)", ranged, staged)
			}
			assertSameTree(t, src, dst)
			t.Logf("summary %+v", sum)
		})
	}
}

// A source file changed after its copy and before the tree is put in
// place is found by the listing at the end: the copy fails naming it, the
// target does not appear, and a rerun copies the file again and puts the
// whole tree in place.
func TestFreshTreeSourceChanged(t *testing.T) {
	for _, slow := range []float64{0, 0.3} {
		t.Run(fmt.Sprintf("slow-%g", slow), func(t *testing.T) {
			e := newEnv(t)
			if slow > 0 {
				e.slowCopier(t, slow)
			}
			src, dst := e.path("src"), e.path("dst")
			e.freshSource(t, src, 6, true)
			var o fscopy.Options
			o.Copy = copyOpts(4)
			o.Files = 2
			changed := src + "/f3"
			var h fscopy.Hooks
			h.AfterCopy = func(p string) {
				if p == changed {
					f, err := e.other.Open(changed, os.O_WRONLY|os.O_TRUNC, 0)
					if err != nil {
						t.Error(err)
						return
					}
					if _, err := f.Write(test.RandomData(99, 5000)); err != nil {
						t.Error(err)
					}
					f.Close()
				}
			}
			_, err := e.copierWith(t, o, nil, h).Copy(ctx, src, dst, true)
			if err == nil {
				t.Fatal("the copy succeeded although a source file changed during it")
			}
			if _, serr := e.other.Statx(dst, gocephfs.StatxBasicStats, 0); serr == nil {
				t.Fatalf("%s was put in place after a source file changed (%v)", dst, err)
			}
			if _, serr := e.other.Statx(e.path(".radoscp.dst"), gocephfs.StatxBasicStats, 0); serr != nil {
				t.Fatalf("no staging tree left for a rerun: %v", serr)
			}
			t.Logf("the copy: %v", err)
			var reports []fscopy.Report
			if _, err := e.copier(t, fscopy.Options{Copy: copyOpts(4)}, &reports).Copy(ctx, src, dst, true); err != nil {
				t.Fatal(err)
			}
			copied := 0
			for _, r := range reports {
				if r.Outcome == fscopy.Copied {
					copied++
					if r.Src != changed {
						t.Errorf("the rerun copied %s again, which was complete", r.Src)
					}
				}
			}
			if copied != 1 {
				t.Errorf("the rerun copied %d files, not the changed one alone", copied)
			}
			assertSameTree(t, src, dst)
		})
	}
}

// Two copies of one tree to one new target at once: the second finds the
// first's staging tree locked, fails with ErrBusy naming the first, and
// changes nothing; the first puts the whole tree in place.
func TestFreshTreeTwoCopies(t *testing.T) {
	for _, slow := range []float64{0, 0.3} {
		t.Run(fmt.Sprintf("slow-%g", slow), func(t *testing.T) {
			e := newEnv(t)
			src, dst := e.path("src"), e.path("dst")
			e.freshSource(t, src, 4, false)
			second := &env{other: e.other, dir: e.dir}
			second.conn, second.fs = test.MountFS(t)
			if slow > 0 {
				second.slowCopier(t, slow)
			}
			var o fscopy.Options
			o.Copy = copyOpts(4)
			var once sync.Once
			var busy error
			var h fscopy.Hooks
			h.AfterCopy = func(string) {
				once.Do(func() {
					_, busy = second.copier(t, fscopy.Options{Copy: copyOpts(4)}, nil).Copy(ctx, src, dst, true)
				})
			}
			if _, err := e.copierWith(t, o, nil, h).Copy(ctx, src, dst, true); err != nil {
				t.Fatal(err)
			}
			if !errors.Is(busy, fscopy.ErrBusy) || !strings.Contains(busy.Error(), fmt.Sprintf("radoscp pid %d", os.Getpid())) {
				t.Fatalf("the second copy, while the first ran: %v; want ErrBusy naming the first", busy)
			}
			assertSameTree(t, src, dst)
		})
	}
}

// A rerun that takes over an interrupted copy's staging tree publishes the
// source as it is now: a file the first run copied and whose source was
// removed since, a directory no longer in the source, and a marked
// per-file staging file such as a radoscp before the per-tree copy left
// in a subvolume clone's tree are removed from the staging tree before it
// is put in place, and the copy reports none of it as deleted. On a
// normal and a slow client; checked against the source by
// assertSameTree. Without the pass the three were published.
func TestFreshTreeRerunDropsWhatTheSourceLost(t *testing.T) {
	for _, slow := range []float64{0, 0.3} {
		t.Run(fmt.Sprintf("slow-%g", slow), func(t *testing.T) {
			e := newEnv(t)
			if slow > 0 {
				e.slowCopier(t, slow)
			}
			src, dst := e.path("src"), e.path("dst")
			e.freshSource(t, src, 6, false)
			if err := e.other.MakeDir(src+"/sub", 0o755); err != nil {
				t.Fatal(err)
			}
			e.write(t, src+"/sub/g", nil, 0o644, map[uint64][]byte{0: test.RandomData(5, 3000)})
			var o fscopy.Options
			o.Files = 1
			changed := src + "/f5"
			var h fscopy.Hooks
			h.AfterCopy = func(p string) {
				if p == changed {
					f, err := e.other.Open(changed, os.O_WRONLY|os.O_TRUNC, 0)
					if err != nil {
						t.Error(err)
						return
					}
					if _, err := f.Write(test.RandomData(98, 4000)); err != nil {
						t.Error(err)
					}
					f.Close()
				}
			}
			if _, err := e.copierWith(t, o, nil, h).Copy(ctx, src, dst, true); err == nil {
				t.Fatal("the copy succeeded although a source file changed during it")
			}
			staging := e.path(".radoscp.dst")
			for _, p := range []string{staging + "/f0", staging + "/sub/g"} {
				if _, err := e.other.Statx(p, gocephfs.StatxBasicStats, 0); err != nil {
					t.Fatalf("the interrupted copy left no %s in its staging tree: %v", p, err)
				}
			}
			// Between the runs: the source loses f0 and sub, and the
			// staging tree gains an old radoscp's marked staging file.
			if err := e.other.Unlink(src + "/f0"); err != nil {
				t.Fatal(err)
			}
			if err := e.other.Unlink(src + "/sub/g"); err != nil {
				t.Fatal(err)
			}
			if err := e.other.RemoveDir(src + "/sub"); err != nil {
				t.Fatal(err)
			}
			old := staging + "/.radoscp.f1.7"
			e.write(t, old, nil, 0o600, map[uint64][]byte{0: []byte("half a copy")})
			if err := e.other.SetXattr(old, "user.radoscp.staging", []byte("f1"), 0); err != nil {
				t.Fatal(err)
			}

			var reports []fscopy.Report
			sum, err := e.copier(t, fscopy.Options{}, &reports).Copy(ctx, src, dst, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range reports {
				if r.Outcome == fscopy.Deleted {
					t.Errorf("the rerun reports %s deleted: it removed it from its own staging tree, not from a target", r.Dst)
				}
			}
			if sum.Deleted != 0 {
				t.Errorf("the summary counts %d deletions", sum.Deleted)
			}
			assertSameTree(t, src, dst)
		})
	}
}
