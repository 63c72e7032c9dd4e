package fscopy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/test"
)

// A tree of many directories, none with a layout of its own, each holding
// a few one-object files: a new-target copy reads no layout per
// directory. A directory's own layout is looked at in the client's cache
// (the listing that found it brought it), and a directory's first file
// takes the layout remembered for its nearest ancestor: on the source
// under the proof at the OSDs, on the destination through directories
// with no layout of their own. What is left is about 2.6 getattr
// requests a directory: its quotas (a vxattr, always a request) and the
// stat of a subdirectory in its parent's listing, at the walk and at the
// recheck (libcephfs asks the MDS: a listing's reply gives no caps on
// subdirectories). Reading the source directory's layout and a file's
// layout on each side made it 5.5. On a normal and a slow client, read
// back through ceph-fuse with diff -r.
func TestDirectoryLayoutsNotReadPerDirectory(t *testing.T) {
	fuse := test.FuseMount(t)
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		src := e.path("src")
		dirs := []string{src}
		for i := range 6 {
			d := fmt.Sprintf("%s/d%d", src, i)
			dirs = append(dirs, d, d+"/in")
		}
		e.mkdirs(t, dirs...)
		for i, d := range dirs {
			for j := range 3 {
				e.write(t, fmt.Sprintf("%s/f%d", d, j), nil, 0o644, map[uint64][]byte{0: test.RandomData(uint64(500+10*i+j), 2000+300*j)})
			}
		}
		// A first copy has the other client give its caps back; the
		// second, by a client of its own as a run is, is the one counted.
		first := e.copier(t, fscopy.Options{Copy: copyOpts(4)}, nil)
		if _, err := first.Copy(ctx, src, e.path("dst1"), true); err != nil {
			t.Fatal(err)
		}
		fscopy.WaitSettled(first)
		c := mountCopier(t, slow).copier(t, fscopy.Options{Copy: copyOpts(4)}, nil)
		before := test.MDSRequests(t)
		if _, err := c.Copy(ctx, src, e.path("dst2"), true); err != nil {
			t.Fatal(err)
		}
		got := test.RequestsSince(before, test.MDSRequests(t))
		t.Logf("MDS requests for %d directories of 3 one-object files: %v", len(dirs), got)
		if limit := uint64(3 * len(dirs)); got["getattr"] > limit {
			t.Errorf("%d getattr requests for %d directories, want at most %d: a directory still costs layout reads", got["getattr"], len(dirs), limit)
		}
		if got["getattr"] < uint64(len(dirs)) {
			t.Errorf("%d getattr requests for %d directories: the quotas of each are read, so at least one each", got["getattr"], len(dirs))
		}
		test.Run(t, "diff", "-r", fuse+src, fuse+e.path("dst2"))
	})
}

// Directories with layouts of their own, in other pool namespaces and
// striping, nested among plain ones, with one-object files (one of them
// with striping of its own): every copied file has its source's data and
// the layout the copy promises (the source's striping, in the pool and
// namespace its destination directory gives), where a directory's first
// file takes its ancestor's files' layout only as far as it holds. On a
// normal and a slow client, read through ceph-fuse (cmp, getfattr).
func TestLayoutsAcrossDirectories(t *testing.T) {
	eachClientViewed(t, func(t *testing.T, v fuseView, e *env, slow float64) {
		src := e.path("src")
		tree := []string{"", "ns", "ns/in", "ns/in/deeper", "plain", "plain/in", "striped", "striped/in", "back"}
		for _, d := range tree {
			e.mkdirs(t, strings.TrimSuffix(src+"/"+d, "/"))
		}
		e.setDirNamespace(t, src+"/ns", "radoscpns1")
		e.setDirNamespace(t, src+"/back", "")
		if err := e.other.SetXattr(src+"/striped", "ceph.dir.layout", []byte("stripe_unit=65536 stripe_count=2 object_size=1048576 pool=cephfs_data pool_namespace=radoscpns2"), 0); err != nil {
			t.Fatal(err)
		}
		own := &layout.Layout{StripeUnit: 1 << 20, StripeCount: 1, ObjectSize: 1 << 20}
		data := map[string][]byte{}
		for i, d := range tree {
			for j := range 2 {
				name := strings.TrimPrefix(fmt.Sprintf("%s/f%d", d, j), "/")
				data[name] = test.RandomData(uint64(600+10*i+j), 3000+5000*j)
				var l *layout.Layout
				if d == "ns/in" && j == 1 {
					l = own
				}
				e.write(t, src+"/"+name, l, 0o644, map[uint64][]byte{0: data[name]})
			}
		}
		test.Ceph(t, "tell", "mds.0", "flush", "journal")
		c := mountCopier(t, slow).copier(t, fscopy.Options{Copy: copyOpts(4), Files: 8}, nil)
		if _, err := c.Copy(ctx, src, e.path("dst"), true); err != nil {
			t.Fatal(err)
		}
		getfattr := func(name, p string) string {
			return strings.TrimSpace(test.Run(t, "getfattr", "--only-values", "-n", name, v.local(p)))
		}
		for name, want := range data {
			v.cmp(e.path("dst", name), want)
			if got, want := getfattr("ceph.file.layout", e.path("dst", name)), getfattr("ceph.file.layout", e.path("src", name)); got != want {
				t.Errorf("%s: layout %q, its source's %q", name, got, want)
			}
		}
		if got := getfattr("ceph.file.layout.pool_namespace", e.path("dst", "ns/in/deeper/f0")); got != "radoscpns1" {
			t.Errorf("ns/in/deeper/f0 in namespace %q, want radoscpns1", got)
		}
	})
}
