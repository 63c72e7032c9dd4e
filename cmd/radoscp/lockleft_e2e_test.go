package main

import (
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// A client with exactly the README's caps for a rados: copy leaves no
// copy lock object behind (the rados CLI lists none), on a normal and a
// slow client. One whose caps let it read the lock object an earlier
// copy left and take its lock, but not write it, gets the copy done,
// exit 0, and a warning naming the object and the command that removes
// it.
func TestE2ELockObjectRemovedWithLeastCaps(t *testing.T) {
	conf, src, _, _, b, data := copySetup(t, 4)
	for _, c := range confs(t, conf) {
		t.Run(c.name, func(t *testing.T) {
			dst := test.UniqueName(t)
			cleanupObjects(t, b, dst, 4)
			name := test.UniqueName(t)
			keyring := test.Client(t, name, "mon", capsMon, "osd", capsRawCopy)
			r := runCmd(t, nil, "cp", "-c", c.conf, "--id", name, "--keyring", keyring, "--no-progress",
				"--object-size", "1M", "--length", "4M", "rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
			if r.code != 0 || strings.Contains(r.stderr, "warning") {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			assertObjects(t, b, dst, data[:4])
			if left := listNamed(t, conf, "radoscp-b", dst+".radoscp-lock"); len(left) > 0 {
				t.Errorf("rados ls lists %q after the copy", left)
			}
		})
	}
	t.Run("cannot-remove", func(t *testing.T) {
		dst := test.UniqueName(t)
		cleanupObjects(t, b, dst, 4)
		lock := dst + ".radoscp-lock"
		t.Cleanup(func() { test.RadosCLI(conf, "-p", "radoscp-b", "rm", lock) })
		// The lock object is there, made by an earlier copy (with
		// radoscp's mark); this client may read it and take its lock
		// but not write it, so not remove it.
		if out, err := test.RadosCLI(conf, "-p", "radoscp-b", "create", lock); err != nil {
			t.Fatalf("rados create: %v: %s", err, out)
		}
		if out, err := test.RadosCLI(conf, "-p", "radoscp-b", "setxattr", lock, "radoscp.lock-object", dst); err != nil {
			t.Fatalf("rados setxattr: %v: %s", err, out)
		}
		name := test.UniqueName(t)
		caps := "allow r pool=radoscp-a, allow r pool=radoscp-b, allow rw pool=radoscp-b object_prefix " + objName(dst, 0)[:len(dst)+8] + ", " + capsLock
		keyring := test.Client(t, name, "mon", capsMon, "osd", caps)
		r := runCmd(t, nil, "cp", "-c", conf, "--id", name, "--keyring", keyring, "--no-progress",
			"--object-size", "1M", "--length", "4M", "rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		assertObjects(t, b, dst, data[:4])
		if left := listNamed(t, conf, "radoscp-b", lock); len(left) != 1 {
			t.Fatalf("rados ls lists %q; want the lock object this client cannot remove", left)
		}
		want := "rados -p radoscp-b rm " + lock
		if !strings.Contains(r.stderr, "warning") || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "EPERM") {
			t.Errorf("stderr %q: want a warning with the EPERM and %q", r.stderr, want)
		}
	})
}
