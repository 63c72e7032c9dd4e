package main

import (
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// Keeping a directory's layout needs 'p' in the client's MDS caps: without
// it cp -r fails that directory with EACCES and says what to grant; with
// --no-preserve the same client copies the tree, without the layout. (The
// directory's layout is another data pool with the default striping, so
// its files need no layout of their own.)
func TestE2EDirLayoutNeedsP(t *testing.T) {
	e := newFSEnv(t)
	for _, d := range []string{"src", "src/striped"} {
		if err := e.m.MakeDir(e.path(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.m.SetXattr(e.path("src/striped"), "ceph.dir.layout", []byte("stripe_unit=4194304 stripe_count=1 object_size=4194304 pool=cephfs_data2"), 0); err != nil {
		t.Fatal(err)
	}
	e.write(t, "src/striped/f", []byte("data"))
	name := test.UniqueName(t)[:20] + "np"
	keyring := test.Client(t, name, "mon", "allow r fsname=cephfs", "mds", "allow rw fsname=cephfs", "osd", "allow rw tag cephfs data=cephfs")
	as := []string{"cp", "-c", e.conf, "--id", name, "--keyring", keyring, "-r"}
	r := runCmd(t, nil, append(as, "cephfs:"+e.path("src"), "cephfs:"+e.path("dst"))...)
	if r.code != 1 || !strings.Contains(r.stderr, "EACCES") || !strings.Contains(r.stderr, "'p'") || !strings.Contains(r.stderr, "ceph.dir.layout") {
		t.Fatalf("cp -r of a directory with a layout, without 'p': exit %d, stderr %q; want 1, EACCES, ceph.dir.layout and 'p'", r.code, r.stderr)
	}
	if _, ok := e.read(t, "dst/striped/f"); ok {
		t.Fatal("a file was copied into a directory whose layout could not be set")
	}
	r = runCmd(t, nil, append(as, "--no-preserve", "cephfs:"+e.path("src"), "cephfs:"+e.path("bare"))...)
	if r.code != 0 {
		t.Fatalf("cp -r --no-preserve without 'p': exit %d\nstderr: %s", r.code, r.stderr)
	}
	if got, _ := e.read(t, "bare/striped/f"); string(got) != "data" {
		t.Fatalf("bare/striped/f = %q", got)
	}
	if _, err := e.m.GetXattr(e.path("bare/striped"), "ceph.dir.layout"); err == nil {
		t.Fatal("--no-preserve kept the directory's layout")
	}
}
