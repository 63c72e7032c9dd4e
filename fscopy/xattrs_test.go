package fscopy_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

// xattrTree makes, through ceph-fuse with POSIX ACLs on (fuse), a tree
// under dir with every xattr namespace a client can read and set, and
// returns its paths, relative to dir: an access ACL on a file and on a
// directory, a default ACL on that directory (with a file made in it
// before the ACL was set, which has none, and one after, which inherits
// it), a file capability, a security.* label, trusted.* and user.*
// xattrs, on a file owned by another user.
func xattrTree(t *testing.T, fuse, dir string) []string {
	t.Helper()
	script := `set -e; cd "$0"
mkdir d
head -c 5242891 /dev/urandom > d/plain
setfacl -m u:1234:rwx,g:55:rx d
setfacl -d -m u:77:rwx,g:55:rx d
head -c 3145728 /dev/urandom > d/inherits
head -c 1048576 /dev/urandom > acl
setfacl -m u:1234:rw acl
head -c 100 /dev/urandom > cap
chown 1000:1000 cap
setfattr -n security.capability -v 0sAQAAAgAgAAAAAAAAAAAAAAAAAAA= cap
setfattr -n security.label -v lab cap
setfattr -n trusted.t -v x cap
setfattr -n user.u -v y cap
setfattr -n trusted.dir -v z d
`
	test.Run(t, "sh", "-c", script, fuse+dir)
	return []string{".", "d", "d/plain", "d/inherits", "acl", "cap"}
}

// xattrsOf is what getfattr reads of p through ceph-fuse: every xattr,
// all namespaces (-m -), and the mode and owner.
func xattrsOf(t *testing.T, p string) string {
	t.Helper()
	out, err := exec.Command("getfattr", "-h", "-d", "-m", "-", "--absolute-names", p).Output()
	if err != nil {
		t.Fatalf("getfattr %s: %v", p, err)
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" && !strings.HasPrefix(l, "# file:") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, " ") + " | " + strings.TrimSpace(test.Run(t, "stat", "-c", "%A %u:%g", p))
}

// cp -r and migrate keep every xattr a client can read and set, as rsync
// -aAX does: POSIX ACLs (access and default), security.capability,
// security.* and trusted.* besides user.*, read back with getfattr
// through ceph-fuse with POSIX ACLs on, on files and directories, on a
// normal and a slow client. The file without an ACL in the directory
// with a default ACL has none in the copy either, though its staging
// file inherited one. Verify finds the copy the same, and names a
// dropped ACL.
func TestCopyKeepsEveryXattr(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		fuse := test.FuseMountACL(t)
		copier := mountCopier(t, slow)
		src, dst, mig := e.path("src"), e.path("dst"), e.path("mig")
		test.Run(t, "mkdir", fuse+src, fuse+mig)
		paths := xattrTree(t, fuse, src)
		xattrTree(t, fuse, mig)
		want := map[string]string{}
		for _, p := range paths {
			want[p] = xattrsOf(t, fuse+src+"/"+p)
			if got := xattrsOf(t, fuse+mig+"/"+p); strings.Contains(p, "/") || p == "acl" || p == "cap" {
				want["mig/"+p] = got
			}
		}
		for _, must := range []struct{ path, xattr string }{
			{"d", "system.posix_acl_access"}, {"d", "system.posix_acl_default"}, {"d", "trusted.dir"},
			{"d/inherits", "system.posix_acl_access"}, {"acl", "system.posix_acl_access"},
			{"cap", "security.capability"}, {"cap", "security.label"}, {"cap", "trusted.t"}, {"cap", "user.u"},
		} {
			if !strings.Contains(want[must.path], must.xattr+"=") {
				t.Fatalf("the source's %s has no %s: %s", must.path, must.xattr, want[must.path])
			}
		}
		if strings.Contains(want["d/plain"], "system.") {
			t.Fatalf("the source's d/plain has an ACL: %s", want["d/plain"])
		}

		if _, err := copier.copier(t, fscopy.Options{}, nil).Copy(ctx, src, dst, true); err != nil {
			t.Fatal(err)
		}
		if _, err := copier.copier(t, fscopy.Options{Pool: "cephfs_data2"}, nil).Migrate(ctx, mig); err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			if got := xattrsOf(t, fuse+dst+"/"+p); got != want[p] {
				t.Errorf("cp -r: %s: %s\n  the source's: %s", p, got, want[p])
			}
			if w, ok := want["mig/"+p]; ok {
				if got := xattrsOf(t, fuse+mig+"/"+p); got != w {
					t.Errorf("migrate: %s: %s\n  before: %s", p, got, w)
				}
			}
		}
		if got := test.Run(t, "getfattr", "--only-values", "-n", "ceph.file.layout.pool", fuse+mig+"/cap"); got != "cephfs_data2" {
			t.Errorf("migrated file's pool %q", got)
		}

		v := copier.copier(t, fscopy.Options{}, nil)
		sum, err := v.Verify(ctx, src, dst, true, func(fscopy.Verification) {})
		if err != nil || sum.Differing != 0 || sum.Failed != 0 {
			t.Fatalf("verify of the copy: %+v, %v", sum, err)
		}
		test.Run(t, "setfacl", "-b", fuse+dst+"/acl")
		var diffs []string
		v.Verify(ctx, src, dst, true, func(r fscopy.Verification) { diffs = append(diffs, r.Differences...) })
		if !strings.Contains(strings.Join(diffs, "\n"), "the source's [system.posix_acl_access*]") {
			t.Errorf("verify after the copy's ACL was removed: %q; want the ACL named", diffs)
		}
	})
}
