package fscopy_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

// A file whose target has a directory at its name (an empty one, x, and
// one with a file in it, y) fails before its copy starts, without
// --delete: no file is copied (the copy's hook after each file's data
// never runs), and the target's entries (inodes, times, as ceph-fuse
// lists them) are as they were, with no staging file, in a rerun, with
// --ignore-times, and in a dry run, which reports the same failures. A
// directory made at a file's name while the file is being copied fails
// its rename: the copy is discarded and no staging file is left. On a
// copier client that is fast and one whose OSD replies are slow.
func TestFileOverDirectoryRefusedBeforeCopying(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		fuse := test.FuseMount(t) + e.dir
		s, d := e.path("s"), e.path("d")
		e.mkdirs(t, s, d, d+"/x", d+"/y", e.path("s2"))
		for i, p := range []string{"s/x", "s/y", "s2/z", "d/y/keep"} {
			e.write(t, e.path(p), nil, 0o644, map[uint64][]byte{0: test.RandomData(uint64(150+i), 5<<20+i)})
		}
		list := func() string { return entriesBelow(t, fuse+"/d") } // d itself gets s's times
		before := list()
		cp := mountCopier(t, slow)
		for _, o := range []fscopy.Options{{}, {}, {IgnoreTimes: true}, {DryRun: true}} {
			var reports []fscopy.Report
			var mu sync.Mutex
			var copied []string
			o.Files = 2
			h := fscopy.Hooks{AfterCopy: func(src string) {
				mu.Lock()
				defer mu.Unlock()
				copied = append(copied, src)
			}}
			_, err := cp.copierWith(t, o, &reports, h).Copy(ctx, s+"/", d, true)
			if len(copied) > 0 {
				t.Fatalf("copy %+v copied %v over directories", o, copied)
			}
			if err == nil || !strings.Contains(err.Error(), "paths failed") {
				t.Fatalf("copy %+v: %v; want the two files over directories failed", o, err)
			}
			failed := map[string]bool{}
			for _, r := range reports {
				if r.Outcome == fscopy.Failed {
					if !strings.Contains(r.Err.Error(), "is a directory, and a file is not copied over one") {
						t.Fatalf("%s (%+v): %v; want a directory named in the way", r.Dst, o, r.Err)
					}
					failed[strings.TrimPrefix(r.Dst, d+"/")] = true
				}
			}
			if len(failed) != 2 || !failed["x"] || !failed["y"] {
				t.Fatalf("failed %v (%+v); want x and y", failed, o)
			}
			if after := list(); after != before {
				t.Fatalf("after the copy (%+v), the target (entriesBelow) is\n%s\nwas\n%s", o, after, before)
			}
		}

		// A directory made at z's name after the check, during z's copy.
		h := fscopy.Hooks{AfterCopy: func(src string) {
			if strings.HasSuffix(src, "/z") {
				e.mkdirs(t, d+"/z")
			}
		}}
		var reports []fscopy.Report
		if _, err := cp.copierWith(t, fscopy.Options{Files: 1}, &reports, h).Copy(ctx, e.path("s2/z"), d+"/z", false); err == nil || !strings.Contains(err.Error(), "the copy was discarded") {
			t.Fatalf("copy of z, a directory made at its name during the copy: %v; want its copy discarded", err)
		}
		holdsOnly(t, fuse+"/d", "x", "y", "z")
	})
}
