package fscopy_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

// A tree copy into its own source, through a symlink to it (alink -> a)
// or to the root (rootlink -> /), is refused before anything is made, as
// GNU cp refuses it: the source, as ceph-fuse lists it (entriesBelow:
// inodes, links, times, files' sizes), is as it was. Were it not
// refused, the copy would copy itself level after level: the test stops
// such a copy at its second level.
func TestCopyIntoItselfThroughSymlinkRefused(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		fuse := test.FuseMount(t) + e.dir
		a := e.path("a")
		e.mkdirs(t, a, a+"/d")
		e.write(t, a+"/d/f", nil, 0o644, map[uint64][]byte{0: test.RandomData(110, 5000)})
		for link, target := range map[string]string{"alink": "a", "rootlink": "/", "a/d/up": ".."} {
			if err := e.other.Symlink(target, e.path(link)); err != nil {
				t.Fatal(err)
			}
		}
		list := func() string { return entriesBelow(t, fuse) }
		before := list()
		cp := mountCopier(t, slow)
		for _, dst := range []string{
			e.path("alink/copy"),
			e.path("alink"), // an existing directory: the copy would be alink/a
			e.path("alink/d/copy"),
			e.path("rootlink") + e.dir + "/a/copy",
			e.path("a/d/up/d/copy"),
		} {
			ctx, cancel := context.WithCancel(context.Background())
			c := fscopy.New(radoscp.NewEngine(nil, nil), cp.conn, cp.fs, fscopy.Options{}, func(r fscopy.Report) {
				if strings.Count(r.Dst, "/copy/copy") > 0 || strings.Count(r.Dst, "/a/a/") > 0 {
					cancel() // copying itself
				}
			})
			_, err := c.Copy(ctx, a, dst, true)
			cancel()
			fscopy.WaitSettled(c)
			if !errors.Is(err, fscopy.ErrUsage) || !strings.Contains(err.Error(), "into itself") ||
				!strings.Contains(err.Error(), "cephfs:"+a) || !strings.Contains(err.Error(), dst) {
				t.Fatalf("copy of %s to %s: %v; want a refusal naming both", a, dst, err)
			}
			if after := list(); after != before {
				t.Fatalf("after the refused copy to %s, the tree (entriesBelow) is\n%s\nwas\n%s", dst, after, before)
			}
		}
		// Through the same symlink, but beside the source: copied.
		if _, err := cp.copier(t, fscopy.Options{}, nil).Copy(ctx, a, e.path("rootlink")+e.dir+"/b", true); err != nil {
			t.Fatalf("copy of a to rootlink/.../b: %v", err)
		}
		test.Run(t, "diff", "-r", "--no-dereference", fuse+"/a", fuse+"/b")
	})
}
