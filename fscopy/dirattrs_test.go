package fscopy_test

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/layout"
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

// The MDS refuses a whole layout whose values hold a hyphen (its grammar
// reads "0-9-_." as the range '9' to '_'), common in namespaces and pool
// names: a tree with a directory or a file in namespace "team-a" is copied
// with its layouts, into a new target (files inherit the directory's) and
// into an existing one (a file with striping of its own gets the striping
// and the directory's pool and namespace), on a
// normal and a slow client, read through ceph-fuse with getfattr and cmp.
// Before cephfs.LayoutXattrs the copy failed with EINVAL.
func TestCopyLayoutsWithAHyphen(t *testing.T) {
	for _, slow := range []float64{0, 0.3} {
		t.Run(fmt.Sprintf("slow-%g", slow), func(t *testing.T) {
			e := newEnv(t)
			if slow > 0 {
				e.slowCopier(t, slow)
			}
			for _, d := range []string{"src", "src/ns", "merge", "merge/src"} {
				if err := e.fs.Mkdir(e.path(d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := e.other.SetXattr(e.path("src/ns"), "ceph.dir.layout.pool_namespace", []byte("team-a"), 0); err != nil {
				t.Fatal(err)
			}
			e.write(t, e.path("src/ns/f"), nil, 0o644, map[uint64][]byte{0: test.RandomData(3, 5<<20)})
			// A file with striping of its own: its copy's layout is set with
			// the striping and the target directory's pool and namespace.
			own := layout.Layout{StripeUnit: 1 << 20, StripeCount: 1, ObjectSize: 1 << 20}
			e.write(t, e.path("src/ns/own"), &own, 0o644, map[uint64][]byte{0: test.RandomData(4, 3<<20)})

			for _, dst := range []string{"dst", "merge"} {
				if _, err := e.copier(t, fscopy.Options{Files: 2}, nil).Copy(ctx, e.path("src"), e.path(dst), true); err != nil {
					t.Fatalf("copy into %s: %v", dst, err)
				}
			}
			fuse := test.FuseMount(t) + e.dir
			getfattr := func(name, p string) string {
				out, _ := exec.Command("getfattr", "--only-values", "-n", name, fuse+"/"+p).Output()
				return strings.TrimSpace(string(out))
			}
			for _, top := range []string{"src", "dst", "merge/src"} {
				for _, c := range []struct{ name, path, want string }{
					{"ceph.dir.layout.pool_namespace", "ns", "team-a"},
					{"ceph.file.layout.pool_namespace", "ns/f", "team-a"},
					{"ceph.file.layout.pool_namespace", "ns/own", "team-a"},
					{"ceph.file.layout.object_size", "ns/own", "1048576"},
				} {
					if got := getfattr(c.name, top+"/"+c.path); got != c.want {
						t.Errorf("getfattr -n %s %s/%s: %q, want %q", c.name, top, c.path, got, c.want)
					}
				}
				if top != "src" {
					test.Run(t, "cmp", fuse+"/src/ns/f", fuse+"/"+top+"/ns/f")
					test.Run(t, "cmp", fuse+"/src/ns/own", fuse+"/"+top+"/ns/own")
				}
			}
		})
	}
}
