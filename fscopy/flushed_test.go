package fscopy_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

// eachClient runs f as two subtests, the copier's client fast and slow
// (its OSD replies delayed up to slow seconds, see mountCopier).
func eachClient(t *testing.T, f func(t *testing.T, slow float64)) {
	for _, c := range []struct {
		name string
		slow float64
	}{{"fast", 0}, {"slow", 0.05}} {
		t.Run(c.name, func(t *testing.T) { f(t, c.slow) })
	}
}

// mkdirs makes each directory through the other client.
func (e *env) mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := e.other.MakeDir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// bufferWrite rewrites p through the other client (same size, new data)
// and leaves the write buffered there: the file stays open until the test
// ends, nothing is flushed. It returns the new data. It may run on any
// goroutine (a copy's hook).
func (e *env) bufferWrite(t *testing.T, p string, seed uint64, n int) ([]byte, error) {
	data := test.RandomData(seed, n)
	f, err := e.other.Open(p, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.WriteAt(data, 0); err != nil {
		return nil, err
	}
	return data, nil
}

// object0 is the data of p's object 0 as the OSDs have it, read with the
// rados CLI.
func (e *env) object0(t *testing.T, p string) []byte {
	t.Helper()
	stx, err := e.other.Statx(p, gocephfs.StatxIno, gocephfs.AtSymlinkNofollow)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "obj")
	name := fmt.Sprintf("%x.00000000", uint64(stx.Inode))
	if b, err := test.RadosCLI(test.Conf(t), "-p", "cephfs_data", "get", name, out); err != nil {
		t.Fatalf("rados get %s: %v\n%s", name, err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A file whose writer still holds its new data in its cache (the MDS has
// been told nothing) is copied with that new data: the copy makes the
// writer flush before it takes the stat its source-change check starts
// from. Without that, the stat would show the new size and mtime (the
// MDS has the writer flush its metadata to answer it) while the objects
// still held the old data, and the old data would be put in place under
// the new mtime. The rados CLI shows the objects held the old data when
// the copy started; the writer's own client reads the copy back, also
// of a second file, written and closed, that needed no such open.
func TestCopyUnflushedSource(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		src, dst := e.path("src"), e.path("dst")
		e.mkdirs(t, src)
		old := test.RandomData(62, 30000)
		e.write(t, src+"/f", nil, 0o644, map[uint64][]byte{0: old})
		data, err := e.bufferWrite(t, src+"/f", 63, len(old))
		if err != nil {
			t.Fatal(err)
		}
		assertEqual(t, "object 0 before the copy (the write is buffered)", e.object0(t, src+"/f"), old)

		closed := test.RandomData(64, 30000)
		e.write(t, src+"/g", nil, 0o644, map[uint64][]byte{0: closed})

		copier := mountCopier(t, slow)
		before := test.MDSRequests(t)
		if _, err := copier.copier(t, fscopy.Options{}, nil).Copy(ctx, src, dst, true); err != nil {
			t.Fatal(err)
		}
		reqs := test.RequestsSince(before, test.MDSRequests(t))
		if reqs["open"] < 1 {
			t.Errorf("the MDS saw no open during the copy (%v): the buffered file was not opened to flush it", reqs)
		}
		t.Logf("MDS requests: %v", reqs)
		assertEqual(t, "the copy", e.read(t, dst+"/f"), data)
		assertEqual(t, "the copy of g", e.read(t, dst+"/g"), closed)
		assertEqual(t, "object 0 after the copy", e.object0(t, src+"/f"), data)
	})
}

// A tree copy catches a source that changes while it runs, wherever the
// change falls: one made after the walk stat'ed the file and before its
// copy started is copied (the copy's baseline is its own stat); one made
// during the copy, as a buffered write the writer has not flushed, fails
// the file with ErrSourceChanged and leaves the destination as it was (an
// earlier copy, read back through the other client).
func TestTreeSourceChangedAfterWalk(t *testing.T) {
	const size = 3<<20 + 5 // several objects: copied by copy-from
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		src, dst := e.path("src"), e.path("dst")
		e.mkdirs(t, src, dst)
		oldA, oldB := test.RandomData(64, size), test.RandomData(65, size)
		e.write(t, src+"/a", nil, 0o644, map[uint64][]byte{0: oldA})
		e.write(t, src+"/b", nil, 0o644, map[uint64][]byte{0: oldB})
		if _, err := e.copier(t, fscopy.Options{}, nil).Copy(ctx, src, dst, true); err != nil {
			t.Fatal(err)
		}

		copier := mountCopier(t, slow)
		var newA []byte
		var errA, errB error
		o := fscopy.Options{IgnoreTimes: true}
		var h fscopy.Hooks
		h.AfterWalkStat = func(p string) {
			if p == src+"/a" {
				newA, errA = e.bufferWrite(t, p, 66, size)
			}
		}
		changedB := make(chan struct{})
		h.AfterCopy = func(p string) {
			if p == src+"/b" {
				_, errB = e.bufferWrite(t, p, 67, size)
				close(changedB)
			}
		}
		var reports []fscopy.Report
		sum, err := copier.copierWith(t, o, &reports, h).Copy(ctx, src, dst, true)
		select {
		case <-changedB:
		default:
			t.Fatal("b was not changed during its copy")
		}
		if newA == nil || errA != nil || errB != nil {
			t.Fatalf("the changes were not made (a after its walk stat: %v, b during its copy: %v)", errA, errB)
		}
		if err == nil || sum.Files != 1 || sum.Failed != 1 {
			t.Fatalf("copy: %+v, %v; want a copied and b failed", sum, err)
		}
		for _, r := range reports {
			if r.Src == src+"/b" && !errors.Is(r.Err, fscopy.ErrSourceChanged) {
				t.Fatalf("b: %v; want ErrSourceChanged", r.Err)
			}
		}
		assertEqual(t, "dst/src/a (changed after the walk)", e.read(t, dst+"/src/a"), newA)
		assertEqual(t, "dst/src/b (changed during its copy: left as it was)", e.read(t, dst+"/src/b"), oldB)
	})
}

// mountCopier mounts a new client, as a new radoscp run has (nothing of
// the tree in its cache), with OSD replies delayed up to slow seconds (0:
// none). Only this client is slowed; the others keep the cluster's conf.
func mountCopier(t *testing.T, slow float64) *env {
	t.Helper()
	e := &env{}
	if slow > 0 {
		conf := test.Conf(t)
		t.Setenv(test.EnvConf, test.SlowConf(t, slow))
		defer os.Setenv(test.EnvConf, conf)
	}
	e.conn, e.fs = test.MountFS(t)
	return e
}

// A rerun of a tree copy, by a new client, meets a file that another
// client has rewritten (same size, new data and mtime) and not yet
// flushed: the MDS still has the old size and mtime, and so has the
// listing's stat of it (the first entry of a listing libcephfs fetches is
// taken from the MDS's reply as it is, with no caps or locks). The copy
// stats the file afresh, which makes the writer flush, finds it changed
// and copies it; the listing's stat alone would have kept the old copy as
// unchanged. The new data is read back through the writer's own client,
// and the listing's staleness is shown by a third client's listing.
func TestTreeRerunSeesUnflushedChange(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		src, dst := e.path("src"), e.path("dst") // both runs copy into dst
		e.mkdirs(t, src, src+"/d", dst)
		old, data := test.RandomData(60, 20000), test.RandomData(61, 20000)
		e.write(t, src+"/d/f", nil, 0o644, map[uint64][]byte{0: old})
		if _, err := e.copier(t, fscopy.Options{}, nil).Copy(ctx, src, dst, true); err != nil {
			t.Fatal(err)
		}
		was, err := e.fs.Lstat(src + "/d/f")
		if err != nil {
			t.Fatal(err)
		}

		// The writer keeps the file open, its write buffered.
		f, err := e.other.Open(src+"/d/f", os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt(data, 0); err != nil {
			t.Fatal(err)
		}
		if listed := listedStat(t, src+"/d", "f"); !listed.Same(was) {
			t.Fatalf("a new client's listing shows %+v, not the state before the write (%+v): the condition this test is about did not happen", listed, was)
		}

		rerun := mountCopier(t, slow)
		var reports []fscopy.Report
		sum, err := rerun.copier(t, fscopy.Options{}, &reports).Copy(ctx, src, dst, true)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Files != 1 || sum.Unchanged != 0 {
			t.Fatalf("rerun: %+v; want the changed file copied, none kept as unchanged (reports %+v)", sum, reports)
		}
		assertEqual(t, "the copy after the rerun", e.read(t, dst+"/src/d/f"), data)
	})
}

// listedStat is the stat of dir's entry name in a listing by a new
// client of its own.
func listedStat(t *testing.T, dir, name string) cephfs.Stat {
	t.Helper()
	_, fs := test.MountFS(t)
	entries, err := fs.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name == name {
			return e.Stat
		}
	}
	t.Fatalf("%s/%s not listed", dir, name)
	return cephfs.Stat{}
}
