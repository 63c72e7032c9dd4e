package fscopy_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

// A tree copy into a directory that holds its source is refused before
// anything is written, however the target's path names it (its parent by
// "..", a symlink to it), with --delete and --no-clobber too: copying the
// contents of q/a into q would write q/a/a/fN over q/a/fN, a source file,
// and --delete would remove the source as not in it. The tree, as
// ceph-fuse lists it (inodes, links, files' sizes, times), is as it was. A
// snapshot of the target, which no write reaches, is still copied into it
// (a restore), and checked with diff -r through ceph-fuse. On a copier
// client that is fast and one whose OSD replies are slow.
func TestCopyOfSourceInsideTargetRefused(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		fuse := test.FuseMount(t) + e.dir
		q := e.path("q")
		e.mkdirs(t, q, q+"/a", q+"/a/a")
		for i, p := range []string{"a/f", "a/a/f", "other"} {
			e.write(t, q+"/"+p, nil, 0o644, map[uint64][]byte{0: test.RandomData(uint64(130+i), 3000+i)})
		}
		if err := e.other.Symlink("q", e.path("qlink")); err != nil {
			t.Fatal(err)
		}
		list := func() string { return entriesBelow(t, fuse) }
		before := list()
		cp := mountCopier(t, slow)
		for _, c := range []struct {
			src, dst string
			o        fscopy.Options
		}{
			{q + "/a/", q, fscopy.Options{}},
			{q + "/a/", q, fscopy.Options{Delete: true}},
			{q + "/a/", q, fscopy.Options{Delete: true, NoClobber: true}},
			{q + "/a/", q, fscopy.Options{DryRun: true}},
			{q + "/a/a/", q, fscopy.Options{}},
			{q + "/a/", q + "/a/..", fscopy.Options{}},
			{q + "/a/", e.path("qlink"), fscopy.Options{}},
			{q + "/a/a", q, fscopy.Options{}}, // the copy would be q/a
		} {
			_, err := cp.copier(t, c.o, nil).Copy(ctx, c.src, c.dst, true)
			if !errors.Is(err, fscopy.ErrUsage) || !strings.Contains(err.Error(), "write over its own source") ||
				!strings.Contains(err.Error(), "cephfs:"+strings.TrimSuffix(c.src, "/")+" into") {
				t.Fatalf("copy of %s to %s (%+v): %v; want a refusal naming the source", c.src, c.dst, c.o, err)
			}
			if after := list(); after != before {
				t.Fatalf("after the refused copy of %s to %s, the tree (entriesBelow) is\n%s\nwas\n%s", c.src, c.dst, after, before)
			}
		}

		e.snapshot(t, "s1")
		e.write(t, q+"/a/f2", nil, 0o644, map[uint64][]byte{0: test.RandomData(140, 100)})
		if _, err := cp.copier(t, fscopy.Options{Delete: true, MaxDelete: 10}, nil).Copy(ctx, e.path(".snap", "s1", "q")+"/", q, true); err != nil {
			t.Fatalf("restore of q from its snapshot: %v", err)
		}
		test.Run(t, "diff", "-r", "--no-dereference", fuse+"/.snap/s1/q", fuse+"/q")
	})
}
