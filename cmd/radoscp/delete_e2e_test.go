package main

import (
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// cp -r --delete end to end, normal and slow client, checked through
// ceph-fuse (find, rsync): --dry-run lists the deletions as JSON lines
// (outcome deleted, dry_run) and removes nothing; --max-delete 1 removes
// one entry and exits 4 naming what it left; a plain run removes the
// rest, counts them in the JSON summary, and leaves a mirror (rsync
// --delete -n -i finds nothing). --delete where it has no meaning (one
// file, no -r, migrate, rados:) and --max-delete without --delete or
// below 0 are refused with exit 2, nothing written.
func TestE2ECopyDelete(t *testing.T) {
	conf := test.FS(t)
	fuse := test.FuseMount(t)
	for _, c := range confs(t, conf) {
		t.Run(c.name, func(t *testing.T) {
			e := newFSEnv(t)
			dir := fuse + e.dir
			sh := func(script string) string {
				t.Helper()
				return test.Run(t, "sh", "-ec", "cd "+dir+" && "+script)
			}
			sh("mkdir -p src/a out && echo 1 > src/f && echo 2 > src/a/g")
			cp := func(want int, args ...string) result {
				t.Helper()
				r := runCmd(t, nil, append([]string{"cp", "-c", c.conf, "--no-progress"}, args...)...)
				if r.code != want {
					t.Fatalf("cp %q: exit %d, want %d\nstdout: %s\nstderr: %s", args, r.code, want, r.stdout, r.stderr)
				}
				return r
			}
			src, out := "cephfs:"+e.path("src"), "cephfs:"+e.path("out")
			cp(0, "-r", src, out)
			sh("cd out/src && echo x > x && mkdir -p d && echo y > d/y && ln -s f l")
			tree := func() string { return sh("find out | sort") }
			before := tree()

			deleted := func(r result) (paths []string, summary map[string]any) {
				for _, l := range jsonLines(t, r) {
					if l["summary"] == true {
						summary = l
					} else if l["outcome"] == "deleted" {
						paths = append(paths, strings.TrimPrefix(l["dst"].(string), e.path("out/src")+"/"))
					}
				}
				return paths, summary
			}
			r := cp(0, "--json", "-r", "--delete", "--dry-run", src, out)
			paths, sum := deleted(r)
			if strings.Join(paths, " ") != "d/y d l x" || sum["deleted"] != 4.0 || sum["dry_run"] != true {
				t.Fatalf("dry run: deleted %q, summary %v", paths, sum)
			}
			r = cp(0, "-r", "--delete", "--dry-run", src, out)
			if !strings.Contains(r.stdout, "would delete cephfs:"+e.path("out/src/d/y")+" (not in the source)\n") ||
				!strings.Contains(r.stdout, "would delete 4 entries not in the source\n") {
				t.Fatalf("text dry run:\n%s", r.stdout)
			}
			if after := tree(); after != before {
				t.Fatalf("the dry runs changed the target:\n%s\nwas\n%s", after, before)
			}

			r = cp(4, "-r", "--delete", "--max-delete", "1", src, out)
			if !strings.Contains(r.stdout, "deleted 1 entry not in the source; 3 more left by --max-delete") ||
				!strings.Contains(r.stderr, "--max-delete 1 reached after 1 deletions; 3 more entries") {
				t.Fatalf("--max-delete 1:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
			}
			if n := len(strings.Fields(sh("find out/src -mindepth 1 ! -path out/src/a ! -path 'out/src/a/*' ! -name f"))); n != 3 {
				t.Fatalf("--max-delete 1 left %d entries, want 3", n)
			}

			r = cp(0, "--json", "-r", "--delete", src, out)
			paths, sum = deleted(r)
			if len(paths) != 3 || sum["deleted"] != 3.0 || sum["deletes_left"] != 0.0 || sum["error"] != nil {
				t.Fatalf("--delete: deleted %q, summary %v", paths, sum)
			}
			if got := test.Run(t, "rsync", "-a", "-H", "-n", "-i", "--checksum", "--delete", dir+"/src/", dir+"/out/src/"); got != "" {
				t.Fatalf("rsync -a -H -n -i --checksum --delete finds differences:\n%s", got)
			}

			// A directory the source lacks, holding an entry the filter
			// leaves out: the entry, and so its directory, are kept,
			// and the line says so naming the target's entry (the
			// source path it would have does not exist).
			sh("mkdir out/src/gone && echo k > out/src/gone/keep.tmp")
			r = cp(0, "-r", "--delete", "--exclude", "*.tmp", src, out)
			if want := "radoscp: skipped cephfs:" + e.path("out/src/gone/keep.tmp") + ": not deleted with its directory"; !strings.Contains(r.stderr, want) {
				t.Fatalf("--delete beside an excluded entry: stderr %q, want %q", r.stderr, want)
			}
			if sh("cat out/src/gone/keep.tmp") != "k\n" {
				t.Fatal("the excluded entry was deleted")
			}
			sh("rm -r out/src/gone")

			before = tree()
			for _, bad := range []struct {
				args []string
				want string
			}{
				{[]string{"cp", "--delete", src + "/f", out + "/f2"}, "--delete mirrors a directory tree: give -r"},
				{[]string{"cp", "-r", "--delete", src + "/f", out + "/f2"}, "--delete mirrors a directory tree (cp -r DIR)"},
				{[]string{"cp", "-r", "--max-delete", "3", src, out}, "--max-delete 3 bounds the deletions of --delete"},
				{[]string{"cp", "-r", "--delete", "--max-delete", "-1", src, out}, "--max-delete -1: expected 0 or more"},
				{[]string{"cp", "--delete", "--length", "4096", "rados:radoscp-a/x", "rados:radoscp-b/x"}, "--delete applies to cephfs: copies only"},
				{[]string{"migrate", "--pool", "cephfs_data", "--delete", src}, "unknown flag --delete"},
			} {
				r := runCmd(t, nil, append([]string{bad.args[0], "-c", c.conf, "--no-progress"}, bad.args[1:]...)...)
				if r.code != 2 || !strings.Contains(r.stderr, bad.want) {
					t.Fatalf("%q: exit %d, stderr %q; want 2 and %q", bad.args, r.code, r.stderr, bad.want)
				}
			}
			if after := tree(); after != before {
				t.Fatalf("a refused run changed the target:\n%s\nwas\n%s", after, before)
			}
		})
	}
}
