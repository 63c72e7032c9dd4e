package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// The caps `ceph fs authorize FS client.X / rw` gives are all a CephFS copy
// needs when the destination keeps its directory's layout; migrate (and
// copies that set a layout) also need 'p' in the MDS caps. Without write on
// the data pools a copy fails with EPERM naming the object, and no
// destination appears.
func TestE2ECephFSLeastPrivilege(t *testing.T) {
	e := newFSEnv(t)
	data := test.RandomData(7, 9<<20)
	e.write(t, "src", data)
	name := test.UniqueName(t)[:20] + "fs"
	keyring := test.Client(t, name,
		"mon", "allow r fsname=cephfs",
		"mds", "allow rw fsname=cephfs",
		"osd", "allow rw tag cephfs data=cephfs")
	as := []string{"-c", e.conf, "--id", name, "--keyring", keyring}
	r := runCmd(t, nil, append(append([]string{"cp"}, as...), "cephfs:"+e.path("src"), "cephfs:"+e.path("copy"))...)
	if r.code != 0 {
		t.Fatalf("cp with fs authorize caps: exit %d\nstderr: %s", r.code, r.stderr)
	}
	if got, _ := e.read(t, "copy"); !bytes.Equal(got, data) {
		t.Fatal("copy differs")
	}
	r = runCmd(t, nil, append(append([]string{"migrate"}, as...), "--pool", "cephfs_data2", "cephfs:"+e.path("copy"))...)
	if r.code != 1 || !strings.Contains(r.stderr, "EACCES") || !strings.Contains(r.stderr, "'p'") {
		t.Fatalf("migrate without 'p': exit %d, stderr %q; want 1 and EACCES naming the missing 'p'", r.code, r.stderr)
	}
	test.Client(t, name, "mon", "allow r fsname=cephfs", "mds", "allow rwp fsname=cephfs", "osd", "allow rw tag cephfs data=cephfs")
	r = runCmd(t, nil, append(append([]string{"migrate"}, as...), "--pool", "cephfs_data2", "cephfs:"+e.path("copy"))...)
	if r.code != 0 {
		t.Fatalf("migrate with 'allow rwp': exit %d\nstderr: %s", r.code, r.stderr)
	}

	ro := name + "ro"
	roKeyring := test.Client(t, ro,
		"mon", "allow r fsname=cephfs",
		"mds", "allow rw fsname=cephfs",
		"osd", "allow r tag cephfs data=cephfs")
	r = runCmd(t, nil, "cp", "-c", e.conf, "--id", ro, "--keyring", roKeyring, "cephfs:"+e.path("src"), "cephfs:"+e.path("denied"))
	if r.code != 1 || !strings.Contains(r.stderr, "EPERM") {
		t.Fatalf("cp without write on the data pool: exit %d, stderr %q; want 1 and EPERM", r.code, r.stderr)
	}
	if _, ok := e.read(t, "denied"); ok {
		t.Fatal("a denied copy left its destination")
	}
	for _, n := range e.names(t, "") {
		if strings.HasPrefix(n, ".radoscp.") {
			t.Fatalf("a denied copy left %s", n)
		}
	}
}
