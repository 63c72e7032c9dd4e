package fscopy_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// Files named like staging files are the user's unless radoscp marked
// them: checked here through ceph-fuse (cmp, stat), on a copier client
// that is fast and one whose OSD replies are slow.

// gate runs do once, when the copy first reads an object of the file
// whose inode is ino (the engine locating it for a copy-from, or reading
// it): a point after the copy's checks and before it puts the file in
// place, where another client changes the destination directory.
type gate struct {
	store.Objects
	prefix string
	once   *sync.Once
	do     func()
}

func gateOn(ino uint64, do func()) func(store.Objects) store.Objects {
	once := &sync.Once{}
	return func(o store.Objects) store.Objects {
		return &gate{Objects: o, prefix: fmt.Sprintf("%x.", ino), once: once, do: do}
	}
}

func (g *gate) Locate(oid string) store.Location {
	if strings.HasPrefix(oid, g.prefix) {
		g.once.Do(g.do)
	}
	return g.Objects.Locate(oid)
}

func (g *gate) Read(oid string, buf []byte, off uint64) (int, error) {
	if strings.HasPrefix(oid, g.prefix) {
		g.once.Do(g.do)
	}
	return g.Objects.Read(oid, buf, off)
}

// local writes data to a file outside Ceph, for cmp.
func local(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// holdsOnly fails t unless directory dir, listed through ceph-fuse with
// ls -A, holds exactly names, no staging file among them.
func holdsOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	got := strings.Fields(test.Run(t, "ls", "-A", dir))
	slices.Sort(got)
	names = slices.Sorted(slices.Values(names))
	if !slices.Equal(got, names) {
		t.Fatalf("%s holds %v: want %v and no staging file", dir, got, names)
	}
}

// statFuse gives "inode,links,size" of each path, through ceph-fuse.
func statFuse(t *testing.T, paths ...string) []string {
	t.Helper()
	return strings.Fields(test.Run(t, "stat", append([]string{"-c", "%i,%h,%s"}, paths...)...))
}

// newTreeEnv is newEnv with a source directory src, made, a destination
// dst, not, and e's directory through ceph-fuse.
func newTreeEnv(t *testing.T) (e *env, fuse, src, dst string) {
	e = newEnv(t)
	src, dst = e.path("src"), e.path("dst")
	e.mkdirs(t, src)
	return e, test.FuseMount(t) + e.dir, src, dst
}

// sameTree fails t if rsync, comparing data and hard links, finds dst
// different from src.
func sameTree(t *testing.T, src, dst string) {
	t.Helper()
	if out := test.Run(t, "rsync", "-a", "-H", "-n", "-i", "--checksum", src+"/", dst+"/"); out != "" {
		t.Fatalf("rsync -a -H -n -i --checksum %s/ %s/ finds differences:\n%s", src, dst, out)
	}
}

// A user's file at the destination's staging name, a hard link to
// sub/bar, is neither grown, nor locked, nor removed: the copy takes
// another staging name, and bar keeps its data, size and links. Both a
// file of many objects (whose leftover would be grown to the source's
// size before removal) and one of one object, with and without --resume.
func TestUserFileAtStagingNameIsLeftAlone(t *testing.T) {
	for _, c := range []struct {
		name   string
		size   int
		resume bool
	}{{"three-objects", 9<<20 + 17, false}, {"three-objects-resume", 9<<20 + 17, true}, {"one-object", 40<<10 + 17, false}} {
		t.Run(c.name, func(t *testing.T) {
			eachClient(t, func(t *testing.T, slow float64) {
				e := newEnv(t)
				fuse := test.FuseMount(t) + e.dir
				e.mkdirs(t, e.path("sub"))
				data, bar := test.RandomData(90, c.size), test.RandomData(91, 5000)
				e.write(t, e.path("f"), nil, 0o644, map[uint64][]byte{0: data})
				e.write(t, e.path("sub/bar"), nil, 0o644, map[uint64][]byte{0: bar})
				if err := e.other.Link(e.path("sub/bar"), e.path(".radoscp.g")); err != nil {
					t.Fatal(err)
				}
				before := statFuse(t, fuse+"/sub/bar", fuse+"/.radoscp.g")

				var reports []fscopy.Report
				cp := mountCopier(t, slow)
				if _, err := cp.copier(t, fscopy.Options{Resume: c.resume}, &reports).Copy(ctx, e.path("f"), e.path("g"), false); err != nil {
					t.Fatal(err)
				}
				if r := reports[0]; r.Resumed || r.Reason != "" {
					t.Fatalf("the copy took the user's .radoscp.g for a leftover: resumed %v, reason %q", r.Resumed, r.Reason)
				}
				after := statFuse(t, fuse+"/sub/bar", fuse+"/.radoscp.g")
				if strings.Join(after, " ") != strings.Join(before, " ") || !strings.HasSuffix(after[0], fmt.Sprintf(",2,%d", len(bar))) {
					t.Fatalf("sub/bar and .radoscp.g (inode,links,size): %v before the copy, %v after", before, after)
				}
				test.Run(t, "cmp", local(t, "bar", bar), fuse+"/sub/bar")
				test.Run(t, "cmp", fuse+"/f", fuse+"/g")
				holdsOnly(t, fuse, ".radoscp.g", "f", "g", "sub") // the user's .radoscp.g
			})
		})
	}
}

// A copy whose staging name is taken over meanwhile (a user's file, a
// hard link to sub/bar, renamed there by another client while the copy
// reads its source) fails its check before the rename, and its discard
// removes only its own inode: the user's file stays, bar neither grown
// nor unlinked, and the destination is not made.
func TestStagingNameTakenOverMeanwhile(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		fuse := test.FuseMount(t) + e.dir
		e.mkdirs(t, e.path("sub"))
		data, bar := test.RandomData(92, 9<<20+17), test.RandomData(93, 5000)
		e.write(t, e.path("f"), nil, 0o644, map[uint64][]byte{0: data})
		e.write(t, e.path("sub/bar"), nil, 0o644, map[uint64][]byte{0: bar})
		if err := e.other.Link(e.path("sub/bar"), e.path("mine")); err != nil {
			t.Fatal(err)
		}
		sst, err := e.fs.Lstat(e.path("f"))
		if err != nil {
			t.Fatal(err)
		}
		took := false
		o := fscopy.Options{WrapObjects: gateOn(sst.Ino, func() {
			if err := e.other.Rename(e.path("mine"), e.path(".radoscp.g")); err != nil {
				t.Error(err)
			}
			took = true
		})}
		cp := mountCopier(t, slow)
		r := cp.copier(t, o, nil).CopyFile(ctx, e.path("f"), e.path("g"))
		if !took || !errors.Is(r.Err, fscopy.ErrIncomplete) {
			t.Fatalf("copy whose staging name was taken over (taken %v): %v; want ErrIncomplete", took, r.Err)
		}
		if _, err := e.fs.Lstat(e.path("g")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("destination made: %v", err)
		}
		st := statFuse(t, fuse+"/sub/bar", fuse+"/.radoscp.g")
		if st[0] != st[1] || !strings.HasSuffix(st[0], fmt.Sprintf(",2,%d", len(bar))) {
			t.Fatalf("sub/bar and .radoscp.g (inode,links,size) %v: want one inode, 2 links, %d bytes", st, len(bar))
		}
		test.Run(t, "cmp", local(t, "bar", bar), fuse+"/.radoscp.g")
	})
}

// Source entries named like staging files, without radoscp's mark, are
// the user's data: a tree copy copies them like any other (a hard link
// X and a file link.X among them), and a verification compares them.
func TestUserFilesWithStagingNamesAreCopied(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e, fuse, src, dst := newTreeEnv(t)
		names := []string{".radoscp.note", ".radoscp-2.x", ".radoscp-link.y", ".radoscp.link.z", "link.z"}
		for i, n := range names {
			e.write(t, src+"/"+n, nil, 0o644, map[uint64][]byte{0: test.RandomData(uint64(94+i), 3000+i)})
		}
		if err := e.other.Link(src+"/link.z", src+"/z"); err != nil {
			t.Fatal(err)
		}
		cp := mountCopier(t, slow)
		sum, err := cp.copier(t, fscopy.Options{Files: 4}, nil).Copy(ctx, src, dst, true)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Files != len(names) || sum.HardLinks != 1 {
			t.Fatalf("summary %+v: want %d files and 1 hard link", sum, len(names))
		}
		sameTree(t, fuse+"/src", fuse+"/dst")
		// A difference in one of them is found.
		if err := e.other.Truncate(dst+"/.radoscp.note", 10); err != nil {
			t.Fatal(err)
		}
		vs, err := cp.copier(t, fscopy.Options{}, nil).Verify(ctx, src, dst, true, func(fscopy.Verification) {})
		if vs.Differing != 1 {
			t.Fatalf("verify -r with dst/.radoscp.note cut short: %+v, %v; want one path differing", vs, err)
		}
	})
}

// A hard link x and a file link.x are copied at once: x is linked while
// link.x's copy is in flight (its source reads wait until x is reported),
// and neither touches the other's staging file.
func TestHardLinkAndFileLinkDotNameCopiedAtOnce(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e, fuse, src, dst := newTreeEnv(t)
		e.write(t, src+"/a", nil, 0o644, map[uint64][]byte{0: test.RandomData(99, 3000)})
		e.write(t, src+"/link.x", nil, 0o644, map[uint64][]byte{0: test.RandomData(100, 9<<20+17)})
		if err := e.other.Link(src+"/a", src+"/x"); err != nil {
			t.Fatal(err)
		}
		big, err := e.fs.Lstat(src + "/link.x")
		if err != nil {
			t.Fatal(err)
		}
		linked := make(chan struct{})
		o := fscopy.Options{Files: 4, WrapObjects: gateOn(big.Ino, func() { <-linked })}
		cp := mountCopier(t, slow)
		copier := fscopy.New(radoscp.NewEngine(nil, nil), cp.conn, cp.fs, o, func(r fscopy.Report) {
			if r.Err != nil {
				t.Logf("%s: %v", r.Src, r.Err)
			}
			if r.Dst == dst+"/x" {
				close(linked)
			}
		})
		t.Cleanup(func() { fscopy.WaitSettled(copier) })
		sum, err := copier.Copy(ctx, src, dst, true)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Files != 2 || sum.HardLinks != 1 {
			t.Fatalf("summary %+v: want 2 files and 1 hard link", sum)
		}
		sameTree(t, fuse+"/src", fuse+"/dst")
		holdsOnly(t, fuse+"/dst", "a", "link.x", "x")
	})
}
