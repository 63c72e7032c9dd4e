package fscopy_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

// A tree copy keeps the directories' layouts and quotas, and the files
// created later in a copied directory land where they would in the
// source; with NoPreserve it keeps neither. Read through ceph-fuse with
// getfattr.
func TestCopyTreeDirAttrs(t *testing.T) {
	e := newEnv(t)
	for _, d := range []string{"src", "src/striped", "src/striped/inner", "src/plain"} {
		if err := e.fs.Mkdir(e.path(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const dirLayout = "stripe_unit=65536 stripe_count=2 object_size=1048576 pool=cephfs_data2"
	for name, v := range map[string]string{"ceph.dir.layout": dirLayout, "ceph.quota.max_bytes": "50000000", "ceph.quota.max_files": "100"} {
		p := e.path("src/striped")
		if name != "ceph.dir.layout" {
			p = e.path("src")
		}
		if err := e.other.SetXattr(p, name, []byte(v), 0); err != nil {
			t.Fatalf("set %s on %s: %v", name, p, err)
		}
	}
	// One quota alone: ceph.quota reads it with the other at 0.
	if err := e.other.SetXattr(e.path("src/plain"), "ceph.quota.max_files", []byte("7"), 0); err != nil {
		t.Fatal(err)
	}
	e.write(t, e.path("src/striped/inner/f"), nil, 0o644, map[uint64][]byte{0: test.RandomData(1, 3<<20)})

	if _, err := e.copier(t, fscopy.Options{Files: 2}, nil).Copy(ctx, e.path("src"), e.path("dst"), true); err != nil {
		t.Fatal(err)
	}
	if _, err := e.copier(t, fscopy.Options{NoPreserve: true}, nil).Copy(ctx, e.path("src"), e.path("bare"), true); err != nil {
		t.Fatal(err)
	}
	fuse := test.FuseMount(t) + e.dir
	getfattr := func(name, p string) string {
		out, _ := exec.Command("getfattr", "--only-values", "-n", name, fuse+"/"+p).Output() // none: ""
		return strings.TrimSpace(string(out))
	}
	for _, c := range []struct{ name, path, want string }{
		{"ceph.dir.layout", "dst/striped", dirLayout},
		{"ceph.dir.layout", "dst/striped/inner", ""}, // inherits, has none of its own
		{"ceph.dir.layout", "dst/plain", ""},
		{"ceph.quota.max_bytes", "dst", "50000000"},
		{"ceph.quota.max_files", "dst", "100"},
		{"ceph.quota.max_bytes", "dst/striped", ""},
		{"ceph.quota.max_files", "dst/plain", "7"},
		{"ceph.quota.max_bytes", "dst/plain", "0"}, // as in src/plain: readable once any quota is set
		{"ceph.file.layout", "dst/striped/inner/f", dirLayout},
		{"ceph.dir.layout", "bare/striped", ""},
		{"ceph.quota.max_bytes", "bare", ""},
	} {
		if got := getfattr(c.name, c.path); got != c.want {
			t.Errorf("getfattr -n %s %s: %q, want %q", c.name, c.path, got, c.want)
		}
	}
	// A file created in the copy after it was made lands as in the source.
	test.Run(t, "touch", fuse+"/dst/striped/inner/later", fuse+"/src/striped/inner/later")
	if got, want := getfattr("ceph.file.layout", "dst/striped/inner/later"), getfattr("ceph.file.layout", "src/striped/inner/later"); got != want || want == "" {
		t.Errorf("a new file's layout in the copy %q, in the source %q", got, want)
	}
}
