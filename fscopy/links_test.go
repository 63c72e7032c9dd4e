package fscopy_test

import (
	"strings"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

// Hard links inside a tree stay hard links in the copy, the data copied
// once; a link whose other paths are outside the tree is copied as a
// file. A rerun relinks what is not a link to the leader's copy (a path
// copied as a file of its own, a link removed) and leaves every path a
// link again. Checked through ceph-fuse, with stat and rsync -H. Every
// copied file is settled (its write caps seen given back, settle.go).
func TestCopyTreeHardLinks(t *testing.T) {
	e := newEnv(t)
	for _, d := range []string{"src", "src/a", "src/b", "outside"} {
		if err := e.fs.Mkdir(e.path(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	one, two, lone := test.RandomData(11, 5<<20+3), test.RandomData(12, 1234), test.RandomData(13, 100)
	e.write(t, e.path("src/one"), nil, 0o644, map[uint64][]byte{0: one})
	e.write(t, e.path("src/b/two"), nil, 0o600, map[uint64][]byte{0: two})
	e.write(t, e.path("src/lone"), nil, 0o644, map[uint64][]byte{0: lone})
	for _, l := range [][2]string{{"src/one", "src/a/one.1"}, {"src/one", "src/b/one.2"}, {"src/b/two", "src/a/two.1"},
		{"src/lone", "outside/lone"}} {
		if err := e.other.Link(e.path(l[0]), e.path(l[1])); err != nil {
			t.Fatal(err)
		}
	}

	// A dry run says which paths would be links, and makes none.
	sum, err := e.copier(t, fscopy.Options{DryRun: true}, nil).Copy(ctx, e.path("src"), e.path("dry"), true)
	if err != nil || sum.HardLinks != 3 || sum.Files != 3 {
		t.Fatalf("dry run: %+v, %v; want 3 files and 3 hard links", sum, err)
	}
	if _, err := e.fs.Lstat(e.path("dry")); err == nil {
		t.Fatal("a dry run made its destination")
	}

	var reports []fscopy.Report
	copier := e.copier(t, fscopy.Options{Files: 3}, &reports)
	sum, err = copier.Copy(ctx, e.path("src"), e.path("dst"), true)
	if err != nil {
		t.Fatal(err)
	}
	// A hard link's reply gives the client write caps on the copy again;
	// the settling must have seen them given back, not waited them out.
	if n := fscopy.SettlesLetGo(copier); n != 0 {
		t.Fatalf("%d files let go at the settling's limit, still holding write caps", n)
	}
	if sum.Files != 3 || sum.HardLinks != 3 || sum.Bytes != uint64(len(one)+len(two)+len(lone)) {
		t.Fatalf("summary %+v: want 3 files copied once (%d bytes) and 3 hard links", sum, len(one)+len(two)+len(lone))
	}
	fuse := test.FuseMount(t)
	dir := fuse + e.dir
	checkLinks := func(when string) {
		t.Helper()
		// stat -c %i,%h: the inode and link count of every path.
		inode := map[string]string{}
		for _, p := range []string{"one", "a/one.1", "b/one.2", "b/two", "a/two.1", "lone"} {
			out := strings.TrimSpace(test.Run(t, "stat", "-c", "%i,%h", dir+"/dst/"+p))
			inode[p] = out
		}
		if inode["one"] != inode["a/one.1"] || inode["one"] != inode["b/one.2"] || !strings.HasSuffix(inode["one"], ",3") {
			t.Fatalf("%s: one's links %v: want one inode with 3 links", when, inode)
		}
		if inode["b/two"] != inode["a/two.1"] || !strings.HasSuffix(inode["b/two"], ",2") {
			t.Fatalf("%s: two's links %v: want one inode with 2 links", when, inode)
		}
		if !strings.HasSuffix(inode["lone"], ",1") {
			t.Fatalf("%s: lone %s: its other link is outside the tree; want a file of its own", when, inode["lone"])
		}
		if out := test.Run(t, "rsync", "-a", "-H", "-n", "-i", "--checksum", dir+"/src/", dir+"/dst/"); out != "" {
			t.Fatalf("%s: rsync -a -H -n -i --checksum src/ dst/ finds differences:\n%s", when, out)
		}
	}
	checkLinks("copy")

	// A path copied as a file of its own (as before hard links were
	// kept), and a link that is missing, in a target a killed copy left
	// (it carries the copy's mark).
	if err := e.fs.SetXattr(e.path("dst"), "user.radoscp.tree", []byte(e.path("src"))); err != nil {
		t.Fatal(err)
	}
	if err := e.fs.Unlink(e.path("dst/b/one.2")); err != nil {
		t.Fatal(err)
	}
	e.write(t, e.path("dst/b/one.2"), nil, 0o644, map[uint64][]byte{0: one})
	if err := e.fs.Unlink(e.path("dst/a/two.1")); err != nil {
		t.Fatal(err)
	}
	reports = nil
	if sum, err = e.copier(t, fscopy.Options{Files: 2}, &reports).Copy(ctx, e.path("src"), e.path("dst"), true); err != nil {
		t.Fatal(err)
	}
	if sum.HardLinks != 3 {
		t.Fatalf("rerun: summary %+v, want 3 hard links", sum)
	}
	checkLinks("rerun")
	already := 0
	for _, r := range reports {
		if r.Outcome == fscopy.HardLink && !strings.HasPrefix(r.Reason, "hard link to cephfs:"+e.path("dst")) {
			t.Fatalf("%s: reason %q", r.Src, r.Reason)
		}
		if strings.HasSuffix(r.Reason, "(already linked)") {
			already++
		}
	}
	// src/one's copy was a link to the unchanged a/one.1 already; b/one.2
	// (a file of its own) and a/two.1 (missing) had to be linked.
	if already != 1 {
		t.Fatalf("rerun: %d links found already made, want 1 (dst/one)", already)
	}
}

// The worker of a link group depends on the inode alone, and the groups
// spread over the workers.
func TestLinkGroupShard(t *testing.T) {
	seen := map[int]int{}
	for ino := uint64(0x10000000000); ino < 0x10000000000+400; ino++ {
		g := fscopy.LinkGroup{Ino: ino}
		s := g.Shard(4)
		if s != g.Shard(4) || s < 0 || s >= 4 {
			t.Fatalf("%+v: shard %d", g, s)
		}
		seen[s]++
	}
	for s := 0; s < 4; s++ {
		if seen[s] < 50 {
			t.Fatalf("shards %v: 400 inodes over 4 workers, want each to have at least 50", seen)
		}
	}
}
