package fscopy_test

import (
	"os"
	"testing"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

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
	for _, c := range []struct {
		name string
		slow float64
	}{{"fast", 0}, {"slow", 0.05}} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			src, dst := e.path("src"), e.path("dst") // both runs copy into dst
			for _, d := range []string{src, src + "/d", dst} {
				if err := e.other.MakeDir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
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

			rerun := mountCopier(t, c.slow)
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
