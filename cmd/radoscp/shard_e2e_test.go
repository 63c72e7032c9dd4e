package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/shard"
	"github.com/radoscp/radoscp/test"
)

// shardTree makes, under dir, a tree with nested directories (modes and
// xattrs of their own, one empty), files of many sizes (one of several
// objects), hard links (a group of three names in three directories, a
// pair), symlinks (one dangling) and a file xattr. It returns the paths
// of its files and symlinks, relative to dir.
func shardTree(t *testing.T, e *slowEnv, dir string) []string {
	t.Helper()
	var names []string
	mkdir := func(p string, mode uint32) {
		if err := e.m.MakeDir(e.path(dir+"/"+p), mode); err != nil {
			t.Fatal(err)
		}
	}
	file := func(p string, size int) {
		e.write(t, dir+"/"+p, test.RandomData(uint64(len(names)+100), size))
		names = append(names, p)
	}
	mkdir("", 0o755)
	for _, d := range []string{"a", "a/b", "a/b/c", "d", "empty"} {
		mkdir(d, 0o755)
	}
	mkdir("e", 0o750)
	if err := e.m.SetXattr(e.path(dir+"/a/b"), "user.dirnote", []byte("on a directory"), 0); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		file(fmt.Sprintf("f%d", i), i*37000)
		file(fmt.Sprintf("a/g%d", i), 100+i*5000)
	}
	for i := 0; i < 5; i++ {
		file(fmt.Sprintf("a/b/c/h%d", i), 4096*i+1)
		file(fmt.Sprintf("e/k%d", i), 3)
	}
	file("d/big", 9<<20+7)
	if err := e.m.SetXattr(e.path(dir+"/f3"), "user.k", []byte("v"), 0); err != nil {
		t.Fatal(err)
	}
	link := func(from, to string) {
		if err := e.m.Link(e.path(dir+"/"+from), e.path(dir+"/"+to)); err != nil {
			t.Fatal(err)
		}
		names = append(names, to)
	}
	link("f1", "a/hl1")
	link("f1", "d/hl2")
	link("a/g2", "a/b/pair")
	symlink := func(target, p string) {
		if err := e.m.Symlink(target, e.path(dir+"/"+p)); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
	}
	symlink("f0", "s1")
	symlink("../d/big", "a/s2")
	symlink("nowhere", "d/dangling")
	sort.Strings(names)
	return names
}

// statList is every path under p as ceph-fuse's stat shows it (type,
// size, mode, owner, mtime, link count), one line each, sorted.
func statList(t *testing.T, e *slowEnv, p string) string {
	t.Helper()
	out := test.Run(t, "find", e.local(p), "-mindepth", "1", "-printf", "%P %y %s %m %U:%G %T@ %n\n")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// sameTree checks through ceph-fuse that b is exactly a: diff -r, rsync
// -a -n -i --checksum, and the stat of every path; and that b holds no
// staging file and no mark of a copy in progress.
func sameTree(t *testing.T, e *slowEnv, a, b string) {
	t.Helper()
	e.same(t, a, b)
	if sa, sb := statList(t, e, a), statList(t, e, b); sa != sb {
		t.Fatalf("stat of %s and %s differ:\n%s\n---\n%s", a, b, sa, sb)
	}
	if out := test.Run(t, "find", e.local(b), "-name", ".radoscp.*"); strings.TrimSpace(out) != "" {
		t.Fatalf("staging files left in %s:\n%s", b, out)
	}
	if v, err := e.m.GetXattr(e.path(b), "user.radoscp.tree"); err == nil {
		t.Fatalf("%s still carries the mark %q", b, v)
	}
}

// copiedBy counts, from the --json lines of each run, which runs put each
// destination path in place (a file copied, a symlink made).
func copiedBy(t *testing.T, runs map[string]result) map[string][]string {
	t.Helper()
	by := map[string][]string{}
	for name, r := range runs {
		for _, l := range jsonLines(t, r) {
			if o := l["outcome"]; o == "copied" || o == "symlink" || o == "hardlink" {
				dst := l["dst"].(string)
				by[dst] = append(by[dst], name)
			}
		}
	}
	return by
}

func summaryOf(t *testing.T, r result) map[string]any {
	t.Helper()
	lines := jsonLines(t, r)
	s := lines[len(lines)-1]
	if s["summary"] != true {
		t.Fatalf("last line is no summary: %v", s)
	}
	return s
}

// Three workers started at once on the same tree, then the final pass,
// give exactly the tree of an unsharded copy (through ceph-fuse: diff -r,
// rsync --checksum, stat of every path), and every file and symlink was
// put in place by exactly one worker, as their --json lines say; with
// --shard-by dir, each directory's by one worker.
func TestE2EShardedTreeCopy(t *testing.T) {
	for _, by := range []string{"path", "dir"} {
		// Each in a directory of its own: side by side.
		t.Run(by, func(t *testing.T) { t.Parallel(); shardedTreeCopy(t, by) })
	}
}

func shardedTreeCopy(t *testing.T, by string) {
	normalAndSlow(t, func(t *testing.T, e *slowEnv, conf string) {
		names := shardTree(t, e, "src")
		r := runCmd(t, nil, "cp", "-r", "-c", e.conf, "--no-progress", "cephfs:"+e.path("src"), "cephfs:"+e.path("ref"))
		if r.code != 0 {
			t.Fatalf("unsharded reference copy: exit %d: %s", r.code, r.stderr)
		}
		var workers []*bgRun
		for k := 0; k < 3; k++ {
			workers = append(workers, startCmd(t, nil, "cp", "-r", "-c", conf, "--json", "--no-progress", "--files", "2",
				"--shard", fmt.Sprintf("%d/3", k), "--shard-by", by, "cephfs:"+e.path("src"), "cephfs:"+e.path("dst")))
		}
		runs := map[string]result{}
		for k, w := range workers {
			r := w.wait(t, 5*time.Minute)
			if r.code != 0 {
				t.Fatalf("worker %d/3: exit %d\nstdout: %s\nstderr: %s", k, r.code, r.stdout, r.stderr)
			}
			s := summaryOf(t, r)
			if s["shard"] != fmt.Sprintf("%d/3", k) || s["seen"] != float64(len(names)) {
				t.Fatalf("worker %d/3's summary %v: want its shard and %d files and symlinks seen", k, s, len(names))
			}
			runs[fmt.Sprintf("worker %d", k)] = r
		}
		// Until the final pass, the target does not exist: the workers
		// built it in one staging tree, marked, with no staging name
		// inside, and their lock files are beside it.
		if _, err := os.Lstat(e.local("dst")); !os.IsNotExist(err) {
			t.Fatalf("after the workers, dst exists (%v); want it made by the final pass only", err)
		}
		if v, err := e.m.GetXattr(e.path(".radoscp.dst"), "user.radoscp.tree"); err != nil || string(v) != e.path("src") {
			t.Fatalf("after the workers, the staging tree's mark is %q, %v; want the source's path", v, err)
		}
		if out := test.Run(t, "find", e.local(".radoscp.dst"), "-mindepth", "1", "-name", ".radoscp*"); strings.TrimSpace(out) != "" {
			t.Fatalf("staging names inside the workers' tree:\n%s", out)
		}
		for _, l := range shareLocks(3) {
			if v, err := e.m.GetXattr(e.path(l), "user.radoscp.share"); err != nil || string(v) != e.path(".radoscp.dst") {
				t.Fatalf("after the workers, lock file %s is marked %q, %v; want the staging tree's path", l, v, err)
			}
		}
		placedBy := copiedBy(t, runs)
		for _, n := range names {
			who := placedBy[e.path("dst/"+n)]
			if len(who) != 1 {
				t.Errorf("%s was put in place by %v; want exactly one worker", n, who)
			}
		}
		if len(placedBy) != len(names) {
			t.Errorf("the workers put %d paths in place; the source has %d files and symlinks", len(placedBy), len(names))
		}
		if by == "dir" {
			oneWorkerADirectory(t, e, names, placedBy)
		}
		if v, err := e.m.GetXattr(e.path(".radoscp.dst"), "user.radoscp.shard-by"); err != nil || string(v) != by {
			t.Fatalf("the staging tree records --shard-by %q, %v; want %q", v, err, by)
		}
		fin := runCmd(t, nil, "cp", "-r", "-c", conf, "--json", "--no-progress", "--shard", "finish/3", "--shard-by", by, "cephfs:"+e.path("src"), "cephfs:"+e.path("dst"))
		if fin.code != 0 {
			t.Fatalf("final pass: exit %d\nstdout: %s\nstderr: %s", fin.code, fin.stdout, fin.stderr)
		}
		s := summaryOf(t, fin)
		// The tree's 5 hard-linked names are 2 inodes: 3 names are
		// links to the first, which the final pass finds in place.
		if s["files"] != 0.0 || s["symlinks"] != 0.0 || s["unchanged"] != float64(len(names)-3) || s["hard_links"] != 3.0 ||
			s["missed"] != 0.0 || s["changed"] != 0.0 || s["extra"] != 0.0 {
			t.Fatalf("final pass summary %v: want nothing copied, %d unchanged, 3 hard links in place, no findings", s, len(names)-3)
		}
		sameTree(t, e, "ref", "dst")
		for _, l := range append(shareLocks(3), ".radoscp.dst") {
			if _, err := os.Lstat(e.local(l)); !os.IsNotExist(err) {
				t.Fatalf("after the final pass, %s is still there (%v)", l, err)
			}
		}
		runs["final"] = fin
		files := saveOutputs(t, runs)
		rep := runCmd(t, nil, "report", "--json", files["worker 0"], files["worker 1"], files["worker 2"], files["final"])
		var merged shardReport
		if err := json.Unmarshal([]byte(rep.stdout), &merged); rep.code != 0 || err != nil || !merged.OK ||
			merged.Total.Files+merged.Total.Symlinks+merged.Total.HardLinks != len(names) || merged.Final == nil {
			t.Fatalf("report: exit %d, %v\n%s%s", rep.code, err, rep.stdout, rep.stderr)
		}
		if rep := runCmd(t, nil, "report", files["worker 0"], files["worker 2"], files["worker 2"]); rep.code != 1 ||
			!strings.Contains(rep.stdout, "shard 1/3 is missing") || !strings.Contains(rep.stdout, "shard 2/3 is given 2 times") {
			t.Fatalf("report of shards 0, 2, 2: exit %d\n%s", rep.code, rep.stdout)
		}
		shardedVerify(t, e, conf, by)
	})
}

// oneWorkerADirectory checks that, of a --shard-by dir copy, the files and
// symlinks of each directory (but hard-linked files, shared by inode)
// were put in place by one worker, and that the workers' shares, of the
// tree's 7 directories, are not all one worker's.
func oneWorkerADirectory(t *testing.T, e *slowEnv, names []string, placedBy map[string][]string) {
	t.Helper()
	dirs := map[string]map[string]bool{}
	workers := map[string]bool{}
	for _, n := range names {
		var st syscall.Stat_t
		if err := syscall.Lstat(e.local("src/"+n), &st); err != nil {
			t.Fatal(err)
		}
		if st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Nlink > 1 {
			continue
		}
		d := filepath.Dir(n)
		if dirs[d] == nil {
			dirs[d] = map[string]bool{}
		}
		for _, w := range placedBy[e.path("dst/"+n)] {
			dirs[d][w] = true
			workers[w] = true
		}
	}
	for d, who := range dirs {
		if len(who) != 1 {
			t.Errorf("--shard-by dir: the entries of %s were put in place by %v; want one worker", d, who)
		}
	}
	if len(workers) < 2 {
		t.Errorf("--shard-by dir: every directory went to %v; want the directories spread", workers)
	}
}

// shareLocks are the names of the lock files of a sharded copy of n
// workers to dst: the one held while the tree is made, and each share's.
func shareLocks(n int) []string {
	names := []string{".radoscp-shard.dst"}
	for k := 0; k < n; k++ {
		names = append(names, fmt.Sprintf(".radoscp-shard%d.dst", k))
	}
	return names
}

// shardedVerify: three verify workers over src and dst compare exactly
// the paths one unsharded verify compares, each once; a difference put
// into dst (through ceph-fuse) is found by one worker, which exits 1.
// by is their --shard-by.
func shardedVerify(t *testing.T, e *slowEnv, conf, by string) {
	t.Helper()
	verified := func(k string) (map[string]int, []result) {
		got := map[string]int{}
		var rs []result
		for i := 0; i < 3; i++ {
			args := []string{"verify", "-r", "-c", conf, "--json", "cephfs:" + e.path("src"), "cephfs:" + e.path("dst")}
			if k != "" {
				args = append(args, "--shard", fmt.Sprintf("%d/3", i), "--shard-by", by)
			} else if i > 0 {
				break
			}
			r := runCmd(t, nil, args...)
			rs = append(rs, r)
			for _, l := range jsonLines(t, r) {
				if l["summary"] != true {
					got[l["src"].(string)]++
				}
			}
		}
		return got, rs
	}
	all, rs := verified("")
	if rs[0].code != 0 {
		t.Fatalf("unsharded verify: exit %d\n%s", rs[0].code, rs[0].stdout)
	}
	each, rs := verified("sharded")
	for i, r := range rs {
		if r.code != 0 {
			t.Fatalf("verify --shard %d/3: exit %d\n%s", i, r.code, r.stdout)
		}
	}
	if len(each) != len(all) {
		t.Fatalf("the sharded verifies compared %d paths, the unsharded one %d", len(each), len(all))
	}
	for p, n := range each {
		if n != 1 || all[p] != 1 {
			t.Fatalf("%s compared %d times by the sharded verifies, %d by the unsharded one", p, n, all[p])
		}
	}
	if err := os.WriteFile(e.local("dst/a/g4"), test.RandomData(5, 20100), 0o644); err != nil {
		t.Fatal(err)
	}
	_, rs = verified("sharded")
	failed := 0
	for _, r := range rs {
		if r.code == 1 && strings.Contains(r.stdout, `"same":false`) && strings.Contains(r.stdout, "a/g4") {
			failed++
		} else if r.code != 0 {
			t.Fatalf("verify: exit %d\n%s", r.code, r.stdout)
		}
	}
	if failed != 1 {
		t.Fatalf("%d sharded verifies found the changed file; want exactly one", failed)
	}
}

// A worker killed mid-copy (SIGKILL while its staging file of a large
// file of its share is being written) and rerun finishes its share: the
// final pass then finds nothing missed, and the tree is the source's.
func TestE2EShardKilledWorkerRerun(t *testing.T) {
	e := newSlowEnv(t, 1.0)
	names := shardTree(t, e, "src")
	// A large file of worker 1's share, for the kill to land in.
	big := ""
	for i := 0; big == ""; i++ {
		if n := fmt.Sprintf("large%d", i); shard.Of(n, 3) == 1 {
			big = n
		}
	}
	// Large enough (32 objects, at window 1 on a client whose OSD
	// replies come up to 1 s late) that the runs refused while it is
	// copied are over long before it is.
	e.write(t, "src/"+big, test.RandomData(77, 128<<20))
	names = append(names, big)
	args := func(k int) []string {
		return []string{"cp", "-r", "-c", e.slow, "--json", "--no-progress", "--window", "1", "--files", "1", "--log-level", "debug",
			"--shard", fmt.Sprintf("%d/3", k), "cephfs:" + e.path("src"), "cephfs:" + e.path("dst")}
	}
	var workers []*bgRun
	for k := 0; k < 3; k++ {
		workers = append(workers, startCmd(t, nil, args(k)...))
	}
	victim := workers[1]
	// The file in the workers' staging tree records its source (the
	// record a finished copy removes) while it is being copied.
	inTree := ".radoscp.dst/" + big
	copying := func() bool {
		_, err := e.m.GetXattr(e.path(inTree), "user.radoscp.source")
		return err == nil
	}
	waitFor(t, victim, 3*time.Minute, "worker 1 copying "+big, copying)
	// While it copies, a second run of share 1 and the final pass are
	// refused, naming it and the workers' lock.
	pid := fmt.Sprintf("radoscp pid %d ", victim.cmd.Process.Pid)
	if again := runCmd(t, nil, args(1)...); again.code != 1 || !strings.Contains(again.stderr, pid) {
		t.Fatalf("a second run of share 1 while worker 1 runs: exit %d; want 1 naming %q\n%s", again.code, pid, again.stderr)
	}
	if early := runCmd(t, nil, "cp", "-r", "-c", e.conf, "--no-progress", "--shard", "finish/3", "cephfs:"+e.path("src"), "cephfs:"+e.path("dst")); early.code != 1 ||
		!strings.Contains(early.stderr, "still running") {
		t.Fatalf("the final pass while workers run: exit %d; want 1, a worker still running\n%s", early.code, early.stderr)
	}
	waitFor(t, victim, 3*time.Minute, "worker 1's checkpoint in "+big, func() bool {
		return copying() && strings.Contains(victim.log.String(), "msg=checkpoint")
	})
	victim.cmd.Process.Signal(syscall.SIGKILL)
	r := victim.wait(t, time.Minute)
	if r.code != -int(syscall.SIGKILL) {
		t.Fatalf("worker 1: exit %d; want killed by SIGKILL", r.code)
	}
	if !copying() {
		t.Fatalf("the kill landed after %s's copy: it records no source", big)
	}
	runs := map[string]result{}
	for _, k := range []int{0, 2} {
		if r := workers[k].wait(t, 5*time.Minute); r.code != 0 {
			t.Fatalf("worker %d: exit %d\n%s", k, r.code, r.stderr)
		} else {
			runs[fmt.Sprintf("worker %d", k)] = r
		}
	}
	if _, err := os.Lstat(e.local("dst")); !os.IsNotExist(err) {
		t.Fatalf("dst exists although worker 1 was killed (%v); want it made by the final pass only", err)
	}
	// The killed client's session, and so its locks on the staging tree
	// and its share, is evicted, as an operator (or the MDS) would.
	test.EvictClient(t, victim.cmd.Process.Pid)
	rerun := runCmd(t, nil, args(1)...)
	if rerun.code != 0 {
		t.Fatalf("worker 1 rerun: exit %d\nstdout: %s\nstderr: %s", rerun.code, rerun.stdout, rerun.stderr)
	}
	runs["worker 1 rerun"] = rerun
	// What the killed run put in place before the kill stays; the rerun
	// does again what it cannot find in place (metadata the killed
	// client had not flushed is lost with its session). So every path
	// was put in place by one worker: 0, 2, or 1 (killed or rerun).
	runs["killed worker 1"] = r
	by := copiedBy(t, runs)
	if who := by[e.path("dst/"+big)]; len(who) != 1 || who[0] != "worker 1 rerun" {
		t.Fatalf("%s was put in place by %v; want the rerun of worker 1", big, who)
	}
	for _, n := range names {
		shards := map[string]bool{}
		for _, run := range by[e.path("dst/"+n)] {
			shards[strings.TrimPrefix(strings.TrimSuffix(run, " rerun"), "killed ")] = true
		}
		if len(shards) != 1 {
			t.Errorf("%s was put in place by %v; want runs of exactly one worker", n, by[e.path("dst/"+n)])
		}
	}
	fin := runCmd(t, nil, "cp", "-r", "-c", e.conf, "--json", "--no-progress", "--shard", "finish", "cephfs:"+e.path("src"), "cephfs:"+e.path("dst"))
	if s := summaryOf(t, fin); fin.code != 0 || s["missed"] != 0.0 || s["files"] != 0.0 {
		t.Fatalf("final pass: exit %d, summary %v\n%s", fin.code, s, fin.stderr)
	}
	// With no N, the final pass found the lock files by listing.
	for _, l := range append(shareLocks(3), ".radoscp.dst") {
		if _, err := os.Lstat(e.local(l)); !os.IsNotExist(err) {
			t.Fatalf("after the final pass, %s is still there (%v)", l, err)
		}
	}
	runs["final"] = fin
	files := saveOutputs(t, runs)
	if rep := runCmd(t, nil, "report", files["worker 0"], files["killed worker 1"], files["worker 2"], files["final"]); rep.code != 1 ||
		!strings.Contains(rep.stdout, "ended without its summary line") || !strings.Contains(rep.stdout, "shard 1/3 is missing") {
		t.Fatalf("report with the killed run's output: exit %d\n%s", rep.code, rep.stdout)
	}
	if rep := runCmd(t, nil, "report", files["worker 0"], files["worker 1 rerun"], files["worker 2"], files["final"]); rep.code != 0 {
		t.Fatalf("report with the rerun's output: exit %d\n%s", rep.code, rep.stdout)
	}
	if r := runCmd(t, nil, "cp", "-r", "-c", e.conf, "--no-progress", "cephfs:"+e.path("src"), "cephfs:"+e.path("ref")); r.code != 0 {
		t.Fatalf("unsharded reference copy: exit %d: %s", r.code, r.stderr)
	}
	sameTree(t, e, "ref", "dst")
}

// The final pass finds what changed in the source after the workers'
// walks: a file created (missed: copied now), one rewritten (changed:
// copied again), one removed (extra: left alone); it says so and exits
// non-zero, copying nothing else.
func TestE2EShardFinishFindsChanges(t *testing.T) {
	e := newSlowEnv(t, 0.01)
	names := shardTree(t, e, "src")
	for k := 0; k < 3; k++ {
		if r := runCmd(t, nil, "cp", "-r", "-c", e.conf, "--no-progress", "--shard", fmt.Sprintf("%d/3", k),
			"cephfs:"+e.path("src"), "cephfs:"+e.path("dst")); r.code != 0 {
			t.Fatalf("worker %d: exit %d: %s", k, r.code, r.stderr)
		}
	}
	e.write(t, "src/a/new", []byte("created after the walks"))
	if err := os.WriteFile(e.local("src/f5"), []byte("rewritten"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(e.local("src/a/g7")); err != nil {
		t.Fatal(err)
	}
	fin := runCmd(t, nil, "cp", "-r", "-c", e.conf, "--json", "--no-progress", "--shard", "finish/3", "cephfs:"+e.path("src"), "cephfs:"+e.path("dst"))
	s := summaryOf(t, fin)
	if fin.code == 0 || s["missed"] != 1.0 || s["changed"] != 1.0 || s["extra"] != 1.0 || s["files"] != 2.0 ||
		s["unchanged"] != float64(len(names)-2-3) || !strings.Contains(*strPtr(s["error"]), "the source changed during the sharded run") {
		t.Fatalf("final pass: exit %d, summary %v; want non-zero, 1 missed, 1 changed, 1 extra, 2 files copied", fin.code, s)
	}
	findings := map[string]string{}
	for _, l := range jsonLines(t, fin) {
		if f, ok := l["finding"].(string); ok {
			findings[strings.TrimPrefix(l["src"].(string), e.path("src")+"/")] = f
		}
	}
	if findings["a/new"] != "missed" || findings["f5"] != "changed" || findings["a/g7"] != "extra" || len(findings) != 3 {
		t.Fatalf("findings %v", findings)
	}
	test.Run(t, "cmp", e.local("src/a/new"), e.local("dst/a/new"))
	test.Run(t, "cmp", e.local("src/f5"), e.local("dst/f5"))
	if _, err := os.Stat(e.local("dst/a/g7")); err != nil {
		t.Fatalf("the extra file was not left alone: %v", err)
	}
}

func strPtr(v any) *string {
	s, _ := v.(string)
	return &s
}

// A migrate split in three, started at once, moves every file once: each
// file is reported moved by exactly one worker, all are in the new pool
// afterwards (ceph-fuse's ceph.file.layout.pool) with their contents
// (sha256sum through ceph-fuse); a hard-link group, all of whose links are
// in the tree, is moved whole by the one worker that owns it (its names
// still one inode); the final pass finds nothing to move.
func TestE2EShardedMigrate(t *testing.T) {
	normalAndSlow(t, func(t *testing.T, e *slowEnv, conf string) {
		names := shardTree(t, e, "tree")
		sums := test.Run(t, "sh", "-c", "cd "+e.local("tree")+" && find . -type f | sort | xargs sha256sum")
		var workers []*bgRun
		for k := 0; k < 3; k++ {
			workers = append(workers, startCmd(t, nil, "migrate", "-c", conf, "--json", "--no-progress", "--pool", "cephfs_data2",
				"--shard", fmt.Sprintf("%d/3", k), "cephfs:"+e.path("tree")))
		}
		runs := map[string]result{}
		for k, w := range workers {
			r := w.wait(t, 5*time.Minute)
			if r.code != 0 {
				t.Fatalf("worker %d: exit %d\nstdout: %s\nstderr: %s", k, r.code, r.stdout, r.stderr)
			}
			runs[fmt.Sprintf("worker %d", k)] = r
		}
		by := copiedBy(t, runs)
		var files, links int
		groups, nlink := map[uint64]int{}, map[uint64]uint64{} // a hard link's inode: its names met, its links
		for _, n := range names {
			p := e.path("tree/" + n)
			st, err := os.Lstat(e.local("tree/" + n))
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode()&os.ModeSymlink == 0 {
				if sys := st.Sys().(*syscall.Stat_t); sys.Nlink > 1 {
					links++
					groups[sys.Ino]++
					nlink[sys.Ino] = uint64(sys.Nlink)
				}
				files++
				if len(by[p]) != 1 {
					t.Errorf("%s was moved by %v; want exactly one worker", n, by[p])
				}
				if pool := fuseXattr(t, e, "tree/"+n, "ceph.file.layout.pool"); pool != "cephfs_data2" {
					t.Errorf("%s is in pool %q after the migrate", n, pool)
				}
			}
		}
		for ino, n := range groups {
			if uint64(n) != nlink[ino] {
				t.Errorf("inode %d has %d links, %d of them in the tree: a link group was split", ino, nlink[ino], n)
			}
		}
		if files == 0 || links != 5 || len(groups) != 2 || len(by) != files {
			t.Fatalf("%d files moved of %d, %d hard links", len(by), files, links)
		}
		if after := test.Run(t, "sh", "-c", "cd "+e.local("tree")+" && find . -type f | sort | xargs sha256sum"); after != sums {
			t.Fatalf("contents changed by the migrate:\n%s\n---\n%s", sums, after)
		}
		fin := runCmd(t, nil, "migrate", "-c", conf, "--json", "--no-progress", "--pool", "cephfs_data2", "--shard", "finish/3", "cephfs:"+e.path("tree"))
		if s := summaryOf(t, fin); fin.code != 0 || s["files"] != 0.0 || s["missed"] != 0.0 || s["unchanged"] != float64(files) {
			t.Fatalf("final pass: exit %d, summary %v", fin.code, s)
		}
	})
}

// Bad --shard values exit 2 with a message naming the value (and the
// variable it came from), before anything is written; so does a final
// pass over a target no worker marked.
func TestE2EShardBadInput(t *testing.T) {
	e := newFSEnv(t)
	if err := e.m.MakeDir(e.path("src"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write(t, "src/f", []byte("data"))
	src, dst := "cephfs:"+e.path("src"), "cephfs:"+e.path("dst")
	noIndex := []string{"JOB_COMPLETION_INDEX=", "SLURM_ARRAY_TASK_ID="}
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"cp", "-r", "--shard", "3/3", src, dst}, `shard "3/3": K (3) must be below N (3)`},
		{nil, []string{"cp", "-r", "--shard", "0/0", src, dst}, `shard "0/0": N "0"`},
		{nil, []string{"cp", "-r", "--shard", "one/3", src, dst}, `shard "one/3": K ("one") is not a whole number`},
		{nil, []string{"cp", "-r", "--shard", "2", src, dst}, `shard "2": expected K/N`},
		{noIndex, []string{"cp", "-r", "--shard", "auto/3", src, dst}, "$JOB_COMPLETION_INDEX or $SLURM_ARRAY_TASK_ID"},
		{noIndex, []string{"cp", "-r", "--shard", "$JOB_COMPLETION_INDEX/3", src, dst}, "$JOB_COMPLETION_INDEX is not set"},
		{[]string{"JOB_COMPLETION_INDEX=4"}, []string{"cp", "-r", "--shard", "auto/3", src, dst}, "K ($JOB_COMPLETION_INDEX = 4) must be below N (3)"},
		{[]string{"SLURM_ARRAY_TASK_ID=x", "JOB_COMPLETION_INDEX="}, []string{"migrate", "--pool", "cephfs_data2", "--shard", "auto/2", src}, `K ($SLURM_ARRAY_TASK_ID = "x")`},
		{nil, []string{"cp", "--shard", "0/2", src + "/f", dst}, "give -r"},
		{nil, []string{"verify", "-r", "--shard", "finish", src, dst}, "no final pass"},
		{nil, []string{"cp", "--shard", "0/2", "rados:radoscp-a/x", "rados:radoscp-b/y", "--length", "1"}, "--shard applies to cephfs: copies only"},
		{nil, []string{"cp", "-r", "--shard", "finish", src, dst}, "carries no mark of one"},
		{nil, []string{"cp", "-r", "--shard", "0/2", "--shard-by", "file", src, dst}, `shard-by "file": expected path`},
		{nil, []string{"cp", "-r", "--shard-by", "dir", src, dst}, "--shard-by dir applies to a sharded run: give --shard"},
	} {
		r := runCmd(t, c.env, append(c.args, "-c", e.conf)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	if names := e.names(t, ""); len(names) != 1 {
		t.Fatalf("refused runs left %v", names)
	}
	// A user's file at the name of share 1's lock file: the worker is
	// refused before it makes anything, and the file is left as it was.
	e.write(t, ".radoscp-shard1.dst", []byte("mine"))
	r := runCmd(t, nil, "cp", "-r", "-c", e.conf, "--shard", "1/2", src, dst)
	if r.code != 2 || !strings.Contains(r.stderr, ".radoscp-shard1.dst") || !strings.Contains(r.stderr, "not its lock file") {
		t.Fatalf("worker with a user's file at its lock file's name: exit %d, stderr %q; want 2 naming it", r.code, r.stderr)
	}
	if names := e.names(t, ""); len(names) != 2 {
		t.Fatalf("the refused worker left %v", names)
	}
	if got, _ := e.read(t, ".radoscp-shard1.dst"); string(got) != "mine" {
		t.Fatalf("the user's file now holds %q", got)
	}
	// A worker splitting the tree otherwise than the one that made it is
	// refused before it locks or makes anything of its own.
	dst2 := "cephfs:" + e.path("dst2")
	if r := runCmd(t, nil, "cp", "-r", "-c", e.conf, "--shard", "0/2", src, dst2); r.code != 0 {
		t.Fatalf("worker 0/2: exit %d: %s", r.code, r.stderr)
	}
	r = runCmd(t, nil, "cp", "-r", "-c", e.conf, "--shard", "1/2", "--shard-by", "dir", src, dst2)
	if r.code != 2 || !strings.Contains(r.stderr, "--shard-by dir: the workers of this copy split it by path") {
		t.Fatalf("worker 1/2 --shard-by dir after a worker by path: exit %d, stderr %q; want 2 naming both", r.code, r.stderr)
	}
	if names := e.names(t, ""); slices.Contains(names, ".radoscp-shard1.dst2") {
		t.Fatalf("the refused worker made its lock file: %v", names)
	}
}

// saveOutputs writes each run's stdout to a file of its own, for report.
func saveOutputs(t *testing.T, runs map[string]result) map[string]string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{}
	for name, r := range runs {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
		if err := os.WriteFile(p, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		files[name] = p
	}
	return files
}

// normalAndSlow runs f twice, as subtests: on the cluster's own client
// and on a slow one (OSD replies up to 0.3 s late).
func normalAndSlow(t *testing.T, f func(t *testing.T, e *slowEnv, conf string)) {
	for _, slow := range []bool{false, true} {
		t.Run(map[bool]string{false: "normal", true: "slow"}[slow], func(t *testing.T) {
			e := newSlowEnv(t, 0.3)
			conf := e.conf
			if slow {
				conf = e.slow
			}
			f(t, e, conf)
		})
	}
}

// A sharded subvolume clone: three workers started at once, then the
// final pass, give what an unsharded clone gives (checkClone: the
// snapshot's tree through ceph-fuse with diff -r and rsync -a -H -X
// --checksum, hard links, layouts, quotas, the mgr's info, no staging
// directory or mark left); each path was put in place by one worker; a
// worker leaves the clone to the final pass.
func TestE2ESubvolumeCloneSharded(t *testing.T) {
	fuse := test.FuseMount(t)
	conf := test.FS(t)
	for _, c := range confs(t, conf) {
		t.Run(c.name, func(t *testing.T) {
			name := "sv" + test.UniqueName(t)[len(test.UniqueName(t))-8:]
			e := newSubvolume(t, fuse, name, 0)
			target := name + "-clone"
			removeSubvolumeAtEnd(t, conf, target)
			args := func(s string) []string {
				return []string{"subvolume", "clone", "-c", c.conf, "--json", "--no-progress", "--shard", s, "cephfs", name, e.snap, target}
			}
			if r := runCmd(t, nil, args("finish/3")...); r.code != 2 || !strings.Contains(r.stderr, "no worker has run") {
				t.Fatalf("final pass before any worker: exit %d, %s; want 2", r.code, r.stderr)
			}
			var workers []*bgRun
			for k := 0; k < 3; k++ {
				workers = append(workers, startCmd(t, nil, args(fmt.Sprintf("%d/3", k))...))
			}
			runs := map[string]result{}
			for k, w := range workers {
				r := w.wait(t, 5*time.Minute)
				s := summaryOf(t, r)
				if r.code != 0 || s["state"] != "share-copied" || s["shard"] != fmt.Sprintf("%d/3", k) {
					t.Fatalf("worker %d: exit %d, summary %v\n%s", k, r.code, s, r.stderr)
				}
				runs[fmt.Sprintf("worker %d", k)] = r
			}
			by := copiedBy(t, runs)
			for dst, who := range by {
				if len(who) != 1 {
					t.Errorf("%s was put in place by %v; want one worker", dst, who)
				}
			}
			if len(by) < 8 {
				t.Fatalf("the workers put %d paths in place", len(by))
			}
			fin := runCmd(t, nil, args("finish/3")...)
			s := summaryOf(t, fin)
			if fin.code != 0 || s["state"] != "complete" || s["missed"] != 0.0 || s["files"] != 0.0 {
				t.Fatalf("final pass: exit %d, summary %v\n%s", fin.code, s, fin.stderr)
			}
			e.checkClone(t, target)
			runs["final"] = fin
			files := saveOutputs(t, runs)
			if rep := runCmd(t, nil, "report", files["worker 0"], files["worker 1"], files["worker 2"], files["final"]); rep.code != 0 {
				t.Fatalf("report: exit %d\n%s", rep.code, rep.stdout)
			}
		})
	}
}
