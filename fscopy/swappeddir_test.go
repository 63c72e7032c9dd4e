package fscopy_test

import (
	"bytes"
	"os"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// Another client swaps a directory of an existing target for a symlink
// out of the tree while a tree copy runs, right before the copy writes
// a file into it. The copy writes nothing through the symlink: the
// directory it points to, which holds a file of the same name, reads as
// before through ceph-fuse, and the copy reports the file failed with
// ELOOP, and the directory's attributes too (set on the symlink's
// target before: its mode, owner and times). Before, the staging file
// was made there and renamed over that file. The rest of the tree is copied. Fast and slow client.
func TestTreeCopyWritesNothingThroughASwappedTargetDirectory(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		fuse := test.FuseMount(t)
		src, dst, outside := e.path("src"), e.path("dst"), e.path("outside")
		e.mkdirs(t, src, src+"/d1", src+"/d2", dst, dst+"/d2", outside)
		data := map[string][]byte{}
		for i, p := range []string{"d1/f", "d2/g"} {
			data[p] = test.RandomData(uint64(120+i), 1<<20+i)
			e.write(t, src+"/"+p, nil, 0o644, map[uint64][]byte{0: data[p]})
		}
		victim := []byte("not the copy's to replace")
		e.write(t, outside+"/g", nil, 0o600, map[uint64][]byte{0: victim})
		before := strings.TrimSpace(test.Run(t, "ls", "-lAn", "--time-style=full-iso", fuse+outside))

		swapped := false
		var h fscopy.Hooks
		h.AfterWalkStat = func(p string) {
			if p != src+"/d2/g" {
				return
			}
			if err := e.other.Rename(dst+"/d2", dst+"/d2.moved"); err != nil {
				t.Error(err)
			}
			if err := e.other.Symlink(outside, dst+"/d2"); err != nil {
				t.Error(err)
			}
			swapped = true
		}
		var reports []fscopy.Report
		sum, err := mountCopier(t, slow).copierWith(t, fscopy.Options{Files: 1}, &reports, h).Copy(ctx, src+"/", dst, true)
		if !swapped {
			t.Fatal("the walk never reached d2/g: the directory was never swapped, the case is void")
		}
		if err == nil || sum.Failed != 2 {
			t.Fatalf("copy: %+v, %v; want d2/g and d2's attributes failed", sum, err)
		}
		var failed []string
		for _, r := range reports {
			if r.Err != nil {
				failed = append(failed, r.Src)
				if store.ErrnoOf(r.Err) != syscall.ELOOP {
					t.Errorf("%s: %v; want ELOOP", r.Src, r.Err)
				}
			}
		}
		sort.Strings(failed)
		if want := []string{src + "/d2", src + "/d2/g"}; strings.Join(failed, " ") != strings.Join(want, " ") {
			t.Errorf("failed %v; want %v", failed, want)
		}
		if after := strings.TrimSpace(test.Run(t, "ls", "-lAn", "--time-style=full-iso", fuse+outside)); after != before {
			t.Errorf("the directory the symlink points to changed:\n%s\nwas\n%s", after, before)
		}
		if got, err := os.ReadFile(fuse + outside + "/g"); err != nil || !bytes.Equal(got, victim) {
			t.Errorf("%s through ceph-fuse: %q, %v; want %q", outside+"/g", got, err, victim)
		}
		test.Run(t, "cmp", fuse+src+"/d1/f", fuse+dst+"/d1/f")
	})
}

// Another client swaps a directory of a live source for a symlink to a
// directory outside the source (one the copy's client can read, as an
// admin's can) right after the copy listed its parent, where the walk
// still takes it for a directory. The copy lists and opens nothing
// through the symlink: the other directory's file is not in the target
// (ceph-fuse), and the copy reports the directory failed with ELOOP.
// Before, the other directory's files were copied into the target, under
// the source directory's name and permissions. Fast and slow client.
func TestTreeCopyReadsNothingThroughASwappedSourceDirectory(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		fuse := test.FuseMount(t)
		// Source and target in directories of their own: the target's
		// confinement (its directory's) does not cover the source.
		src, dst, secret := e.path("a", "src"), e.path("b", "dst"), e.path("secret")
		e.mkdirs(t, e.path("a"), e.path("b"), src, src+"/d", src+"/d/sub", secret, dst)
		e.write(t, src+"/d/f", nil, 0o644, map[uint64][]byte{0: test.RandomData(130, 1<<20)})
		e.write(t, src+"/d/sub/g", nil, 0o644, map[uint64][]byte{0: []byte("g")})
		e.write(t, secret+"/key", nil, 0o644, map[uint64][]byte{0: []byte("not the copy's to read")})

		swapped := false
		var h fscopy.Hooks
		h.AfterList = func(p string) {
			if p != src+"/d" {
				return
			}
			if err := e.other.Rename(src+"/d/sub", src+"/sub.moved"); err != nil {
				t.Error(err)
			}
			if err := e.other.Symlink(secret, src+"/d/sub"); err != nil {
				t.Error(err)
			}
			swapped = true
		}
		var reports []fscopy.Report
		sum, err := mountCopier(t, slow).copierWith(t, fscopy.Options{Files: 1}, &reports, h).Copy(ctx, src+"/", dst, true)
		if !swapped {
			t.Fatal("the walk never listed d: sub was never swapped, the case is void")
		}
		if err == nil || sum.Failed != 1 {
			t.Fatalf("copy: %+v, %v; want sub failed", sum, err)
		}
		for _, r := range reports {
			if r.Err != nil && (r.Src != src+"/d/sub" || store.ErrnoOf(r.Err) != syscall.ELOOP) {
				t.Errorf("%s: %v; want only %s failed, ELOOP", r.Src, r.Err, src+"/d/sub")
			}
		}
		if out := strings.TrimSpace(test.Run(t, "find", fuse+e.dir, "-name", "key")); out != fuse+secret+"/key" {
			t.Errorf("the other directory's file was copied:\n%s", out)
		}
		test.Run(t, "cmp", fuse+src+"/d/f", fuse+dst+"/d/f")
	})
}
