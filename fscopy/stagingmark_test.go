package fscopy_test

import (
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/rados/faults"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// staging names of files, and names that are not.
func TestIsStagingName(t *testing.T) {
	for name, want := range map[string]bool{
		".radoscp.g": true, ".radoscp-2.g": true, ".radoscp-8.a.b": true,
		".radoscp.": false, ".radoscp-1.g": false, ".radoscp-9.g": false, ".radoscp-02.g": false,
		".radoscp-link.g": false, ".radoscp-link-2.g": false, ".radoscpg": false, "radoscp.g": false, ".radoscp": false,
	} {
		if got := fscopy.IsStagingName(name); got != want {
			t.Errorf("IsStagingName(%q) = %v, want %v", name, got, want)
		}
	}
}

// fuseXattrs lists p's xattrs through ceph-fuse, names only (getfattr -m -).
func fuseXattrs(t *testing.T, p string) string {
	t.Helper()
	out, err := exec.Command("getfattr", "--absolute-names", "-m", "-", p).CombinedOutput()
	if err != nil {
		t.Fatalf("getfattr -m - %s: %v\n%s", p, err, out)
	}
	return string(out)
}

// A staging file is marked by its mode, 1600, set once it is locked and
// held by the copier's client as a dirty capability, not an xattr: seen
// mid-copy through ceph-fuse, whose stat makes the MDS recall it. Another
// client's copy of the same destination then finds it marked and locked,
// and leaves it alone (ErrBusy). The file put in place has the source's
// mode and no xattr of radoscp's. On a copier client that is fast and on
// one whose OSD replies are slow.
func TestStagingFileMarkedByMode(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		fuse := test.FuseMount(t) + e.dir
		data := test.RandomData(120, 9<<20+17)
		e.write(t, e.path("f"), nil, 0o640, map[uint64][]byte{0: data})
		sst, err := e.fs.Lstat(e.path("f"))
		if err != nil {
			t.Fatal(err)
		}
		var seen string
		var busy error
		o := fscopy.Options{WrapObjects: gateOn(sst.Ino, func() {
			seen = strings.TrimSpace(test.Run(t, "stat", "-c", "%a", fuse+"/.radoscp.g"))
			if x := fuseXattrs(t, fuse+"/.radoscp.g"); strings.Contains(x, "radoscp.staging") {
				t.Errorf("the staging file carries an xattr mark:\n%s", x)
			}
			other := mountCopier(t, 0)
			busy = other.copier(t, fscopy.Options{}, nil).CopyFile(ctx, e.path("f"), e.path("g")).Err
		})}
		cp := mountCopier(t, slow)
		if r := cp.copier(t, o, nil).CopyFile(ctx, e.path("f"), e.path("g")); r.Err != nil {
			t.Fatal(r.Err)
		}
		if seen != "1600" {
			t.Fatalf("the staging file's mode mid-copy, through ceph-fuse: %q, want 1600", seen)
		}
		if !errors.Is(busy, fscopy.ErrBusy) {
			t.Fatalf("another client's copy of the same destination mid-copy: %v; want ErrBusy", busy)
		}
		test.Run(t, "cmp", fuse+"/f", fuse+"/g")
		if mode := strings.TrimSpace(test.Run(t, "stat", "-c", "%a", fuse+"/g")); mode != "640" {
			t.Fatalf("the copy's mode %s, want the source's 640", mode)
		}
		if x := fuseXattrs(t, fuse+"/g"); strings.Contains(x, "radoscp") {
			t.Fatalf("the copy put in place carries radoscp's xattrs:\n%s", x)
		}
		holdsOnly(t, fuse, "f", "g")
	})
}

// Files at a staging name whose mode is near the mark's, the user's, are
// left alone: the copy takes the next staging name, and each keeps its
// inode, mode and data. On a copier client that is fast and one whose OSD
// replies are slow.
func TestNearlyMarkedUserFilesLeftAlone(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		fuse := test.FuseMount(t) + e.dir
		data := test.RandomData(121, 9<<20+17)
		e.write(t, e.path("f"), nil, 0o644, map[uint64][]byte{0: data})
		names := []string{".radoscp.g", ".radoscp-2.g", ".radoscp-3.g"}
		for i, mode := range []uint32{0o1644, 0o600, 0o1700} {
			e.write(t, e.path(names[i]), nil, 0o644, map[uint64][]byte{0: test.RandomData(uint64(122+i), 3000)})
			if err := e.other.Chmod(e.path(names[i]), mode); err != nil {
				t.Fatal(err)
			}
		}
		before := test.Run(t, "stat", "-c", "%n %i %a %s", fuse+"/"+names[0], fuse+"/"+names[1], fuse+"/"+names[2])
		var reports []fscopy.Report
		if _, err := mountCopier(t, slow).copier(t, fscopy.Options{Resume: true}, &reports).Copy(ctx, e.path("f"), e.path("g"), false); err != nil {
			t.Fatal(err)
		}
		if r := reports[0]; r.Resumed || r.Reason != "" {
			t.Fatalf("the copy took a user's file for a leftover: resumed %v, reason %q", r.Resumed, r.Reason)
		}
		if after := test.Run(t, "stat", "-c", "%n %i %a %s", fuse+"/"+names[0], fuse+"/"+names[1], fuse+"/"+names[2]); after != before {
			t.Fatalf("the user's files (name, inode, mode, size) before the copy:\n%safter:\n%s", before, after)
		}
		for i := range names {
			test.Run(t, "cmp", local(t, "user", test.RandomData(uint64(122+i), 3000)), fuse+"/"+names[i])
		}
		test.Run(t, "cmp", fuse+"/f", fuse+"/g")
		holdsOnly(t, fuse, ".radoscp-2.g", ".radoscp-3.g", ".radoscp.g", "f", "g") // the user's three, f and g
	})
}

// A staging file an older radoscp left, marked with the xattr
// user.radoscp.staging, is still one: --resume continues it, and the copy
// put in place carries neither mark. The resuming client is fast, then
// slow.
func TestLegacyMarkedStagingResumed(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		fuse := test.FuseMount(t) + e.dir
		data := test.RandomData(125, 20<<20+99)
		e.write(t, e.path("f"), nil, 0o640, map[uint64][]byte{0: data})
		in := faults.New(1, faults.Rule{Kind: faults.Copy, Nth: 3, Errno: syscall.EIO})
		if _, err := e.copier(t, fscopy.Options{WrapObjects: in.Wrap, Copy: copyOpts(1)}, nil).Copy(ctx, e.path("f"), e.path("g"), false); !errors.Is(err, store.ErrIO) {
			t.Fatalf("copy with a failing copy-from: %v", err)
		}
		if in.Hits() == 0 {
			t.Fatal("the copy-from fault never landed")
		}
		staging := e.path(".radoscp.g")
		if mode := strings.TrimSpace(test.Run(t, "stat", "-c", "%a", fuse+"/.radoscp.g")); mode != "1600" {
			t.Fatalf("the failed copy's staging file has mode %s, want the mark 1600", mode)
		}
		// As radoscp before 2026-12-05 left it.
		if err := e.other.Chmod(staging, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := e.other.SetXattr(staging, "user.radoscp.staging", []byte("g"), 0); err != nil {
			t.Fatal(err)
		}
		var reports []fscopy.Report
		if _, err := mountCopier(t, slow).copier(t, fscopy.Options{Resume: true}, &reports).Copy(ctx, e.path("f"), e.path("g"), false); err != nil {
			t.Fatal(err)
		}
		if r := reports[0]; !r.Resumed || r.ResumedFrom == 0 {
			t.Fatalf("the rerun did not resume the older radoscp's staging file: %+v", r)
		}
		test.Run(t, "cmp", fuse+"/f", fuse+"/g")
		if x := fuseXattrs(t, fuse+"/g"); strings.Contains(x, "radoscp") {
			t.Fatalf("the copy put in place carries radoscp's xattrs:\n%s", x)
		}
		e.assertSameMeta(t, e.path("f"), e.path("g"))
	})
}
