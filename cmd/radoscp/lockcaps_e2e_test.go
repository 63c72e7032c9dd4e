package main

import (
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// A client whose caps lack the lock class is refused the copy lock (exit
// 1, EPERM and the caps to grant) and leaves nothing behind: not the new
// striped object's object 0 nor the raw lock object its open made, so a
// later --no-clobber copy to the name works. An object that was there
// (a striped destination, raw data objects, a lock object an earlier copy
// left) is left exactly as it was: the same objects, sizes, mtimes and
// versions.
func TestE2ENoLockClassLeavesNothing(t *testing.T) {
	conf := test.Conf(t)
	src := test.UniqueName(t)
	a := test.OpenPool(t, conf, "radoscp-a")
	data := writeObjects(t, a, src, 1, oneMiB)
	striped, striperData := makeStriperSource(t, conf, "radoscp-a", oneMiB+100)
	name := test.UniqueName(t)
	who := []string{"--id", name, "--keyring", test.Client(t, name, "mon", capsMon, "osd", "allow r pool=radoscp-a, allow rw pool=radoscp-b")}
	for _, c := range confs(t, conf) {
		t.Run(c.name, func(t *testing.T) {
			run := func(who []string, args ...string) result {
				t.Helper()
				return runCmd(t, nil, append(append([]string{"cp", "-c", c.conf, "--no-progress", "--object-size", "1M"}, who...), args...)...)
			}
			refused := func(r result, object string) {
				t.Helper()
				wantEPERM(t, r, object)
				if !strings.Contains(r.stderr, "class lock") {
					t.Errorf("stderr %q does not name the caps needed", r.stderr)
				}
			}
			t.Run("striper-new", func(t *testing.T) {
				d := test.UniqueName(t)
				t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", d) })
				refused(run(who, "striper:radoscp-a/"+striped, "striper:radoscp-b/"+d), "radoscp-b/"+d+".0000000000000000")
				if objs := listNamed(t, conf, "radoscp-b", d); len(objs) > 0 {
					t.Errorf("objects left in radoscp-b: %q", objs)
				}
				if r := run(nil, "--no-clobber", "striper:radoscp-a/"+striped, "striper:radoscp-b/"+d); r.code != 0 {
					t.Fatalf("--no-clobber afterwards: exit %d: %s", r.code, r.stderr)
				}
				if size := checkPublishedPrefix(t, conf, "radoscp-b", d, striperData); size != uint64(len(striperData)) {
					t.Errorf("published %d of %d bytes", size, len(striperData))
				}
			})
			t.Run("raw-new", func(t *testing.T) {
				d := test.UniqueName(t)
				b := test.OpenPool(t, conf, "radoscp-b")
				cleanupObjects(t, b, d, 1)
				refused(run(who, "--length", "1M", "rados:radoscp-a/"+src, "rados:radoscp-b/"+d), "radoscp-b/"+d+".radoscp-lock")
				if objs := listNamed(t, conf, "radoscp-b", d); len(objs) > 0 {
					t.Errorf("objects left in radoscp-b: %q", objs)
				}
				if r := run(nil, "--no-clobber", "--length", "1M", "rados:radoscp-a/"+src, "rados:radoscp-b/"+d); r.code != 0 {
					t.Fatalf("--no-clobber afterwards: exit %d: %s", r.code, r.stderr)
				}
				assertObjects(t, b, d, data)
			})
			t.Run("striper-existing", func(t *testing.T) {
				d := putStriper(t, conf, "radoscp-b", 100)
				before := poolState(t, conf, "radoscp-b", d)
				refused(run(who, "striper:radoscp-a/"+striped, "striper:radoscp-b/"+d), "radoscp-b/"+d+".0000000000000000")
				if after := poolState(t, conf, "radoscp-b", d); after != before {
					t.Errorf("the existing destination changed:\nbefore:\n%s\nafter:\n%s", before, after)
				}
			})
			t.Run("raw-existing", func(t *testing.T) {
				d := test.UniqueName(t)
				b := test.OpenPool(t, conf, "radoscp-b")
				writeObjects(t, b, d, 1, 100)
				cleanupObjects(t, b, d, 1)
				// The lock object an earlier copy left, marked as radoscp's.
				if out, err := test.RadosCLI(conf, "-p", "radoscp-b", "setxattr", d+".radoscp-lock", "radoscp.lock-object", d); err != nil {
					t.Fatalf("rados setxattr: %v\n%s", err, out)
				}
				t.Cleanup(func() { test.RadosCLI(conf, "-p", "radoscp-b", "rm", d+".radoscp-lock") })
				before := poolState(t, conf, "radoscp-b", d)
				refused(run(who, "--length", "1M", "rados:radoscp-a/"+src, "rados:radoscp-b/"+d), "radoscp-b/"+d+".radoscp-lock")
				if after := poolState(t, conf, "radoscp-b", d); after != before || !strings.Contains(after, ".radoscp-lock") {
					t.Errorf("the existing destination changed:\nbefore:\n%s\nafter:\n%s", before, after)
				}
			})
		})
	}
}
