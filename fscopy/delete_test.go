package fscopy_test

import (
	"errors"
	"path"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/shard"
	"github.com/radoscp/radoscp/test"
)

// --delete (fscopy's delete.go), checked through ceph-fuse with ls,
// find, diff -r and rsync, on a copier client that is fast and one whose
// OSD replies are slow.

// deleteTree makes, through ceph-fuse, a source tree src (by script) and
// a copy of it into directory out, out/src, by the copier c; it returns
// the fuse paths of both. A rerun of cp -r src out copies into out/src
// again.
func deleteTree(t *testing.T, c *env, e *env, fuse, script string) (string, string) {
	t.Helper()
	dir := fuse + e.dir
	test.Run(t, "sh", "-ec", "cd "+dir+" && mkdir out src && cd src && "+script)
	copier := c.copier(t, fscopy.Options{Sync: fscopy.SyncFS}, nil)
	if sum, err := copier.Copy(ctx, e.path("src"), e.path("out"), true); err != nil || sum.Failed != 0 {
		t.Fatalf("first copy: %+v, %v", sum, err)
	}
	return dir + "/src", dir + "/out/src"
}

// eachDeleteTree runs f on a fast and a slow copier client c, each time
// with a tree made by deleteTree in a new env e; src and dst are the
// fuse paths of the source and its copy.
func eachDeleteTree(t *testing.T, fuse, script string, f func(t *testing.T, e, c *env, src, dst string)) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		c := mountCopier(t, slow)
		src, dst := deleteTree(t, c, e, fuse, script)
		f(t, e, c, src, dst)
	})
}

// sh runs script in dir through the shell, failing t if it fails.
func sh(t *testing.T, dir, script string) string {
	t.Helper()
	return test.Run(t, "sh", "-ec", "cd "+dir+" && "+script)
}

// deletedPaths are the destinations reported deleted, relative to dst.
func deletedPaths(reports []fscopy.Report, dst string) string {
	var out []string
	for _, r := range reports {
		if r.Outcome == fscopy.Deleted {
			out = append(out, strings.TrimPrefix(r.Dst, dst+"/"))
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func deleteOpts(max int) fscopy.Options {
	return fscopy.Options{Sync: fscopy.SyncFS, Delete: true, MaxDelete: max}
}

// A rerun with --delete removes what the source lost since the first
// copy: a file, one name of a hard link, a symlink, a FIFO, a nested
// directory tree, and an unmarked file at a staging name (the user's).
// It keeps what the filter excludes (a file and a directory), a marked
// target staging directory, a staging link, and a marked staging file (of a file the source lost:
// the copy leaves it, see TestUserFileAtStagingNameIsLeftAlone). The target is then the source: rsync -a -H -X -A
// --checksum --delete (a dry run) and diff -r, told the kept names, find
// nothing, directory times included (set after the deletions).
func TestCopyDeleteMirrorsTheSource(t *testing.T) {
	eachDeleteTree(t, test.FuseMountACL(t), "mkdir -p a/b gone/deep/er && echo 1 > f && echo 2 > a/g && echo 3 > a/b/h && "+
		"ln -s f link && ln f hard && mkfifo fifo && echo 4 > gone/deep/er/y && ln -s ../f gone/l && echo 5 > a/gone.txt && "+
		"setfacl -m u:1234:r a/g && setfattr -n user.k -v v a/b/h", func(t *testing.T, e, c *env, src, dst string) {
		sh(t, src, "rm -r gone a/gone.txt link hard fifo && echo 6 > a/new")
		sh(t, dst, "echo t > extra.tmp && mkdir cache && echo c > cache/c && echo u > .radoscp.user && "+
			"echo s > a/.radoscp.zz && setfattr -n user.radoscp.staging -v zz a/.radoscp.zz && "+
			"mkdir .radoscp.target.0123.t && setfattr -n user.radoscp.tree -v /x .radoscp.target.0123.t && ln f .radoscp-link.f")

		o := deleteOpts(fscopy.NoDeleteLimit)
		o.Filter = &fscopy.Filter{}
		for _, p := range []string{"*.tmp", "cache/"} {
			if err := o.Filter.Add(false, p); err != nil {
				t.Fatal(err)
			}
		}
		var reports []fscopy.Report
		sum, err := c.copier(t, o, &reports).Copy(ctx, e.path("src"), e.path("out"), true)
		want := ".radoscp.user fifo gone gone/deep gone/deep/er gone/deep/er/y gone/l hard link a/gone.txt"
		if got := deletedPaths(reports, e.path("out/src")); err != nil || sum.Failed != 0 || sum.Deleted != 10 || got != sortedWords(want) {
			t.Fatalf("copy --delete: %+v, %v; deleted %q, want %q", sum, err, got, sortedWords(want))
		}
		if got := sh(t, dst, "cat extra.tmp cache/c a/.radoscp.zz .radoscp-link.f && test -d .radoscp.target.0123.t"); got != "t\nc\ns\n1\n" {
			t.Fatalf("kept entries read %q through ceph-fuse", got)
		}
		excl := []string{"--exclude", "*.tmp", "--exclude", "cache/", "--exclude", ".radoscp.zz", "--exclude", ".radoscp.target.*", "--exclude", ".radoscp-link.f"}
		if out := test.Run(t, "rsync", append(append([]string{"-a", "-H", "-X", "-A", "-n", "-i", "--checksum", "--delete"}, excl...), src+"/", dst+"/")...); out != "" {
			t.Fatalf("rsync -a -H -X -A -n -i --checksum --delete finds differences:\n%s", out)
		}
		test.Run(t, "diff", "-r", "--no-dereference", "-x", "*.tmp", "-x", "cache", "-x", ".radoscp.zz", "-x", ".radoscp.target.*", "-x", ".radoscp-link.f", src, dst)
	})
}

func sortedWords(s string) string {
	w := strings.Fields(s)
	sort.Strings(w)
	return strings.Join(w, " ")
}

// --max-delete N removes N entries and counts the rest, which stay;
// 0 removes nothing. Both end with ErrMaxDelete.
func TestCopyDeleteMaxDelete(t *testing.T) {
	eachDeleteTree(t, test.FuseMount(t), "echo k > keep", func(t *testing.T, e, c *env, _, dst string) {
		sh(t, dst, "for i in 1 2 3 4; do echo $i > x$i; done && mkdir d && echo y > d/y")
		count := func() int { return len(strings.Fields(sh(t, dst, "find . -mindepth 1 ! -name keep"))) }
		for _, max := range []int{0, 2} {
			before := count()
			var reports []fscopy.Report
			sum, err := c.copier(t, deleteOpts(max), &reports).Copy(ctx, e.path("src"), e.path("out"), true)
			if !errors.Is(err, fscopy.ErrMaxDelete) || sum.Deleted != max || sum.Deleted+sum.DeletesLeft != before {
				t.Fatalf("--max-delete %d over %d entries: %+v, %v", max, before, sum, err)
			}
			if got := count(); got != before-max {
				t.Fatalf("--max-delete %d: %d entries left through ceph-fuse, want %d", max, got, before-max)
			}
		}
	})
}

// A dry run with --delete lists what it would delete and removes
// nothing.
func TestCopyDeleteDryRun(t *testing.T) {
	eachDeleteTree(t, test.FuseMount(t), "echo k > keep", func(t *testing.T, e, c *env, _, dst string) {
		sh(t, dst, "echo x > x && mkdir -p d/e && echo y > d/e/y && ln -s keep l")
		before := sh(t, dst, "find . | sort")
		o := deleteOpts(fscopy.NoDeleteLimit)
		o.DryRun = true
		var reports []fscopy.Report
		sum, err := c.copier(t, o, &reports).Copy(ctx, e.path("src"), e.path("out"), true)
		if got := deletedPaths(reports, e.path("out/src")); err != nil || sum.Deleted != 5 || got != "d d/e d/e/y l x" {
			t.Fatalf("dry run: %+v, %v; would delete %q", sum, err, got)
		}
		for _, r := range reports {
			if r.Outcome == fscopy.Deleted && !r.DryRun {
				t.Fatalf("dry run reported %s deleted, not as a dry run", r.Dst)
			}
		}
		if after := sh(t, dst, "find . | sort"); after != before {
			t.Fatalf("dry run changed the target through ceph-fuse:\n%s\nwas\n%s", after, before)
		}
	})
}

// A copy with a failure deletes nothing, and says so.
func TestCopyDeleteNothingAfterAFailure(t *testing.T) {
	eachDeleteTree(t, test.FuseMount(t), "echo k > keep", func(t *testing.T, e, c *env, src, dst string) {
		// x is a file in the source and a directory in the target
		// holding a file the filter excludes, which --delete keeps: x
		// cannot be replaced (replace.go), its copy fails.
		sh(t, src, "echo x > x")
		sh(t, dst, "mkdir x && echo y > x/y.keep && echo old > old")
		o := deleteOpts(fscopy.NoDeleteLimit)
		o.Filter = &fscopy.Filter{}
		if err := o.Filter.Add(false, "*.keep"); err != nil {
			t.Fatal(err)
		}
		sum, err := c.copier(t, o, nil).Copy(ctx, e.path("src"), e.path("out"), true)
		if err == nil || sum.Failed == 0 || sum.Deleted != 0 || !strings.Contains(err.Error(), "--delete deleted nothing") {
			t.Fatalf("failed copy with --delete: %+v, %v", sum, err)
		}
		if got := sh(t, dst, "cat old x/y.keep"); got != "old\ny\n" {
			t.Fatalf("after a failed copy, the target's extras read %q through ceph-fuse", got)
		}
	})
}

// A copy with a failure that replaced an entry whose type changed (z: a
// file in the source, a directory in the target) before the failure says
// what it removed, and deleted nothing else.
func TestCopyDeleteOnlyReplacedAfterAFailure(t *testing.T) {
	eachDeleteTree(t, test.FuseMount(t), "echo k > keep", func(t *testing.T, e, c *env, src, dst string) {
		sh(t, src, "echo x > x && echo z > z")
		sh(t, dst, "mkdir x z && echo y > x/y.keep && echo w > z/w && echo old > old")
		o := deleteOpts(fscopy.NoDeleteLimit)
		o.Filter = &fscopy.Filter{}
		if err := o.Filter.Add(false, "*.keep"); err != nil {
			t.Fatal(err)
		}
		sum, err := c.copier(t, o, nil).Copy(ctx, e.path("src"), e.path("out"), true)
		if err == nil || sum.Failed != 1 || sum.Deleted != 2 || !strings.Contains(err.Error(), "--delete removed only the 2 entries of the target reported deleted above, where the source's type had changed") {
			t.Fatalf("failed copy with --delete: %+v, %v", sum, err)
		}
		if got := sh(t, dst, "cat old x/y.keep z"); got != "old\ny\nz\n" {
			t.Fatalf("after a failed copy, the target reads %q through ceph-fuse", got)
		}
	})
}

// listThen is a target directory that runs do once, right after its
// first listing: another client changing the target between the pass's
// listing and its look at what it listed.
type listThen struct {
	fscopy.TargetDir
	once *sync.Once
	do   func()
}

func (l listThen) ReadDir() ([]cephfs.Entry, error) {
	es, err := l.TargetDir.ReadDir()
	l.once.Do(l.do)
	return es, err
}

// The deletion pass never leaves the target. After the copy, and after
// the pass has listed the target's root (where sub, which the source
// has, and gone, which it does not, are directories with entries the
// source lacks), another client moves both aside and puts symlinks in
// their place, to directories outside the target holding files. A pass
// that went by path would list the outside directories through the
// symlinks and remove their files; this one looks each name up in the
// directory it holds, without following it: it leaves the symlink sub
// (a name the source has), removes the symlink gone, and nothing outside
// the target, nor in the directories moved aside, is touched (ls through
// ceph-fuse).
func TestDeleteStaysInsideTheTarget(t *testing.T) {
	eachDeleteTree(t, test.FuseMount(t), "mkdir sub && echo a > sub/a", func(t *testing.T, e, c *env, src, dst string) {
		dir := path.Dir(src)
		sh(t, dir, "mkdir outside outside2 aside && echo a > outside/a && echo o > outside/extra && echo z > outside2/z && "+
			"echo 2 > out/src/sub/extra2 && mkdir out/src/gone && echo q > out/src/gone/q")
		before := sh(t, dir, "find outside outside2 | sort")
		swap := func() {
			for name, to := range map[string]string{"sub": "outside", "gone": "outside2"} {
				if err := e.other.Rename(e.path("out/src", name), e.path("aside", name)); err != nil {
					t.Error(err)
				}
				if err := e.other.Symlink(e.path(to), e.path("out/src", name)); err != nil {
					t.Error(err)
				}
			}
		}
		copier := c.copier(t, deleteOpts(fscopy.NoDeleteLimit), nil)
		var swapped bool
		sum, err := fscopy.DeleteIn(copier, e.path("src"), e.path("out/src"), func(d fscopy.TargetDir) fscopy.TargetDir {
			return listThen{TargetDir: d, once: &sync.Once{}, do: func() { swap(); swapped = true }}
		})
		if !swapped {
			t.Fatal("the pass never listed the target's root")
		}
		if err != nil || sum.Deleted != 1 || sum.Failed != 0 {
			t.Fatalf("deletion pass: %+v, %v; want the symlink gone deleted", sum, err)
		}
		if after := sh(t, dir, "find outside outside2 | sort"); after != before {
			t.Fatalf("outside the target, through ceph-fuse:\n%s\nwas\n%s", after, before)
		}
		if got := sh(t, dir, "cat aside/sub/a aside/sub/extra2 aside/gone/q"); got != "a\n2\nq\n" {
			t.Fatalf("the directories moved aside read %q", got)
		}
		if got := sh(t, dst, "ls -A && readlink sub"); got != "sub\n"+e.path("outside")+"\n" {
			t.Fatalf("the target through ceph-fuse: %q; want only the symlink sub, to %s", got, e.path("outside"))
		}
	})
}

// A sharded copy deletes in its final pass only: workers given Delete
// remove nothing, even a rerun after the source lost entries they had
// copied; the final pass removes them (instead of reporting them as
// extra findings) and the target is then the source (rsync --delete).
func TestShardedCopyDeletesInTheFinalPassOnly(t *testing.T) {
	fuse := test.FuseMount(t)
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		c := mountCopier(t, slow)
		dir := fuse + e.dir
		sh(t, dir, "mkdir out src && cd src && mkdir -p d/e && for i in 1 2 3 4 5 6; do echo $i > f$i; echo $i > d/e/g$i; done")
		run := func(s shard.Shard) (fscopy.Summary, error) {
			o := deleteOpts(fscopy.NoDeleteLimit)
			o.Shard = s
			return c.copier(t, o, nil).Copy(ctx, e.path("src"), e.path("out"), true)
		}
		for k := range 2 {
			if sum, err := run(shard.Shard{K: k, N: 2}); err != nil || sum.Deleted != 0 {
				t.Fatalf("worker %d/2: %+v, %v", k, sum, err)
			}
		}
		sh(t, dir, "rm -r src/d src/f1 src/f4")
		before := sh(t, dir, "find out | sort")
		for k := range 2 {
			if sum, err := run(shard.Shard{K: k, N: 2}); err != nil || sum.Deleted != 0 {
				t.Fatalf("worker %d/2 rerun with the source's entries gone: %+v, %v", k, sum, err)
			}
		}
		if after := sh(t, dir, "find out | sort"); after != before {
			t.Fatalf("workers changed the target:\n%s\nwas\n%s", after, before)
		}
		sum, err := run(shard.Shard{Finish: true})
		if err != nil || sum.Deleted != 10 || sum.Extra != 0 {
			t.Fatalf("final pass: %+v, %v; want 10 deleted (d, d/e, 6 files in it, f1, f4), no extra findings", sum, err)
		}
		if out := test.Run(t, "rsync", "-a", "-H", "-n", "-i", "--checksum", "--delete", dir+"/src/", dir+"/out/src/"); out != "" {
			t.Fatalf("rsync -a -H -n -i --checksum --delete finds differences:\n%s", out)
		}
	})
}

// A tree copy with --delete into a new target (built under its staging
// name, freshtree.go) is put in place: the deletion pass looks in the
// staging tree, where there is nothing to delete, not at the target's
// name, which does not exist until the end.
func TestCopyDeleteIntoANewTarget(t *testing.T) {
	fuse := test.FuseMount(t)
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		c := mountCopier(t, slow)
		dir := fuse + e.dir
		sh(t, dir, "mkdir -p src/a && echo 1 > src/f && echo 2 > src/a/g && ln -s f src/link")
		var reports []fscopy.Report
		copier := c.copier(t, deleteOpts(fscopy.NoDeleteLimit), &reports)
		sum, err := copier.Copy(ctx, e.path("src"), e.path("new"), true)
		if err != nil || sum.Failed != 0 || sum.Deleted != 0 {
			t.Fatalf("copy --delete into a new target: %+v, %v", sum, err)
		}
		if got := deletedPaths(reports, e.path("new")); got != "" {
			t.Fatalf("deleted %q from a new target", got)
		}
		if out := sh(t, dir, "diff -r --no-dereference src new && ls -A"); out != "new\nsrc\n" {
			t.Fatalf("after the copy the directory holds %q, want new and src (no staging tree)", out)
		}
	})
}
