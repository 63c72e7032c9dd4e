package test

import (
	"os/exec"
	"testing"
	"time"
)

// FuseMount mounts the test cluster's CephFS with ceph-fuse, the
// reference POSIX client, and returns the mount point; it is unmounted
// when t ends. Checks through it use ordinary tools (cmp, diff -r, stat),
// so nothing of radoscp's judges radoscp's copies.
func FuseMount(t testing.TB) string {
	t.Helper()
	conf := FS(t)
	if conf == "" {
		return ""
	}
	return fuseMount(t, conf)
}

// FuseMountACL is FuseMount with POSIX ACLs on (client_acl_type
// posix_acl): ceph-fuse then reads and sets the system.posix_acl_*
// xattrs, which setfacl, getfacl and `getfattr -m -` use (without it
// they are refused with EOPNOTSUPP).
func FuseMountACL(t testing.TB) string {
	t.Helper()
	conf := FS(t)
	if conf == "" {
		return ""
	}
	return fuseMount(t, conf, "--client_acl_type=posix_acl")
}

// FuseMount mounts the cluster's CephFS (StartCluster with fs) like the
// package's FuseMount.
func (c *Cluster) FuseMount(t testing.TB) string {
	t.Helper()
	return fuseMount(t, c.Conf)
}

func fuseMount(t testing.TB, conf string, options ...string) string {
	t.Helper()
	if _, err := exec.LookPath("ceph-fuse"); err != nil {
		t.Fatal("ceph-fuse is not installed (test/deps.sh installs it)")
	}
	dir := t.TempDir()
	// No pid file: the cluster's conf names one per entity, which another
	// mount of the same client would hold.
	args := append([]string{"-c", conf, "--pid-file="}, options...)
	if out, err := exec.Command("ceph-fuse", append(args, dir)...).CombinedOutput(); err != nil {
		t.Fatalf("ceph-fuse -c %s %s: %v\n%s", conf, dir, err, out)
	}
	t.Cleanup(func() {
		for i := 0; i < 50; i++ {
			if exec.Command("fusermount3", "-u", dir).Run() == nil || exec.Command("umount", dir).Run() == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("could not unmount %s", dir)
	})
	return dir
}

// Run runs a command, failing t with its output if it fails, and returns
// its standard output.
func Run(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("%s %q: %v\n%s%s", name, args, err, out, msg)
	}
	return string(out)
}
