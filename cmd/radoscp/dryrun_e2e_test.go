package main

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/test"
)

// poolState is every object in pool, in every namespace, whose name
// contains name, with its size and mtime as `rados stat` reports them and
// its version (librados' stat): what a write of any kind (data, xattr,
// lock) would change. The mtime has whole seconds only; the version moves
// with every write.
func poolState(t *testing.T, conf, pool, name string) string {
	t.Helper()
	conn, err := rados.Connect(rados.ConnConfig{ConfPath: conf})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var b strings.Builder
	for _, l := range listNamed(t, conf, pool, name) {
		ns, oid, _ := strings.Cut(l, "\t")
		out, err := test.RadosCLI(conf, "-p", pool, "-N", ns, "stat", oid)
		if err != nil {
			t.Fatalf("rados stat %s/%s: %v", ns, oid, err)
		}
		p, err := conn.OpenPool(pool, ns)
		if err != nil {
			t.Fatal(err)
		}
		st, err := p.Stat(oid)
		if err != nil {
			t.Fatalf("stat %s/%s: %v", ns, oid, err)
		}
		fmt.Fprintf(&b, "%s, version %d\n", strings.TrimSpace(string(out)), st.Version)
	}
	return b.String()
}

// dataPoolState is every object of the CephFS data pools, as `rados ls`
// lists them, that belongs to a file of tree (a treeState: objects of
// other inodes come and go as the MDS purges removed files), with its
// size and version (which every write moves).
func dataPoolState(t *testing.T, conf, tree string) string {
	t.Helper()
	inos := map[string]bool{}
	for _, l := range strings.Split(tree, "\n") {
		if f := strings.Fields(l); len(f) == 5 {
			inos[f[4]] = true
		}
	}
	var b strings.Builder
	for _, pool := range []string{"cephfs_data", "cephfs-ec"} {
		p := test.OpenPool(t, conf, pool)
		for _, l := range listNamed(t, conf, pool, "") {
			_, oid, _ := strings.Cut(l, "\t")
			if ino, _, _ := strings.Cut(oid, "."); !inos[ino] {
				continue
			}
			st, err := p.Stat(oid)
			if err != nil {
				t.Fatalf("stat %s/%s: %v", pool, oid, err)
			}
			fmt.Fprintf(&b, "%s/%s %d %d\n", pool, oid, st.Size, st.Version)
		}
	}
	return b.String()
}

// treeState lists every path under p (relative to the test's directory)
// with its type and mode, size (of files), mtime and inode, as the test's
// own libcephfs mount sees them.
func (e *fsEnv) treeState(t *testing.T, p string) string {
	t.Helper()
	st, err := e.m.Statx(e.path(p), gocephfs.StatxBasicStats, gocephfs.AtSymlinkNofollow)
	if err != nil {
		t.Fatalf("statx %s: %v", p, err)
	}
	isDir := st.Mode&syscall.S_IFMT == syscall.S_IFDIR
	size := st.Size
	if isDir {
		size = 0 // a directory's size is its recursive bytes, which the MDS updates lazily
	}
	out := fmt.Sprintf("%s %o %d %d.%09d %x\n", e.path(p), st.Mode, size, st.Mtime.Sec, st.Mtime.Nsec, st.Inode)
	if !isDir {
		return out
	}
	names := e.names(t, p)
	sort.Strings(names)
	for _, n := range names {
		out += e.treeState(t, path.Join(p, n))
	}
	return out
}

// --dry-run of cp (striper:, rados:), normal and slow client: the line
// says what would be copied and to what destination, and the destination
// pool is the same object for object before and after (rados ls, rados
// stat); --no-clobber still refuses an existing destination with exit 2.
func TestE2EDryRunObjects(t *testing.T) {
	conf := test.Conf(t)
	for _, c := range confs(t, conf) {
		t.Run(c.name, func(t *testing.T) {
			size := 3*oneMiB + 4321
			src, _ := makeStriperSource(t, conf, "radoscp-a", size)
			dst, raw := test.UniqueName(t), test.UniqueName(t)+"raw"
			t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
			dryRun := func(want int, args ...string) result {
				t.Helper()
				before := poolState(t, conf, "radoscp-b", dst) + poolState(t, conf, "radoscp-b", raw)
				r := runCmd(t, nil, append([]string{"cp", "-c", c.conf, "--no-progress", "--dry-run"}, args...)...)
				if r.code != want {
					t.Fatalf("%q: exit %d, want %d\nstdout: %s\nstderr: %s", args, r.code, want, r.stdout, r.stderr)
				}
				if after := poolState(t, conf, "radoscp-b", dst) + poolState(t, conf, "radoscp-b", raw); after != before {
					t.Fatalf("%q wrote to radoscp-b:\nbefore:\n%s\nafter:\n%s", args, before, after)
				}
				return r
			}
			r := dryRun(0, "--json", "--object-size", "1M", "striper:radoscp-a/"+src, "striper:radoscp-b/"+dst)
			m := parseJSON(t, r)
			// Of the 4 objects, the run writes object 0 (the striped
			// object's metadata) and the partial last one through the
			// client: 2 copy-froms, as the run below counts them.
			if m["dry_run"] != true || m["dry_run_action"] != "create" || m["bytes"] != float64(size) ||
				m["objects"] != 2.0 || m["published_eof"] != float64(size) {
				t.Fatalf("dry run onto nothing: %s", r.stdout)
			}
			if objs := striperObjects(t, conf, "radoscp-b", dst); len(objs) != 0 {
				t.Fatalf("a dry run made %v", objs)
			}
			whole := dst + "-whole"
			t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", whole) })
			r = runCmd(t, nil, "cp", "-c", c.conf, "--no-progress", "--json", "--object-size", "1M", "striper:radoscp-a/"+src, "striper:radoscp-b/"+whole)
			if run := parseJSON(t, r); r.code != 0 || run["objects"] != m["objects"] {
				t.Fatalf("the run's objects %v, the dry run's %v (exit %d)", run["objects"], m["objects"], r.code)
			}

			if r := runCmd(t, nil, "cp", "-c", conf, "--no-progress", "--length", "1M", "--src-offset", "1M",
				"striper:radoscp-a/"+src, "striper:radoscp-b/"+dst); r.code != 0 {
				t.Fatalf("a real copy: exit %d: %s", r.code, r.stderr)
			}
			// The destination the real copy made has 4 MiB objects, the
			// source 1 MiB ones: everything would go through the client.
			r = dryRun(0, "striper:radoscp-a/"+src, "striper:radoscp-b/"+dst)
			if want := "dry run: would copy " + strconv.Itoa(size) + " bytes (0 objects by copy-from) striper:radoscp-a/" + src + " -> striper:radoscp-b/" + dst +
				", replacing it (its EOF now 1048576)"; !strings.HasPrefix(r.stdout, want) || !strings.Contains(r.stdout, "nothing was written") {
				t.Fatalf("stdout %q, want %q...", r.stdout, want)
			}
			m = parseJSON(t, dryRun(0, "--json", "--dst-offset", "2M", "--length", "4096", "striper:radoscp-a/"+src, "striper:radoscp-b/"+dst))
			if m["dry_run_action"] != "write-into" || m["bytes"] != 4096.0 || m["published_eof"] != float64(2*oneMiB+4096) {
				t.Fatalf("range dry run: %v", m)
			}
			r = dryRun(2, "--no-clobber", "striper:radoscp-a/"+src, "striper:radoscp-b/"+dst)
			if !strings.Contains(r.stderr, "exists and --no-clobber") {
				t.Fatalf("--no-clobber dry run: %q", r.stderr)
			}

			writeObjects(t, test.OpenPool(t, conf, "radoscp-a"), raw, 2, oneMiB)
			t.Cleanup(func() { cleanupObjects(t, test.OpenPool(t, conf, "radoscp-a"), raw, 2) })
			m = parseJSON(t, dryRun(0, "--json", "--object-size", "1M", "--length", "2M", "rados:radoscp-a/"+raw, "rados:radoscp-b/"+raw))
			if m["dry_run_action"] != "create" || m["bytes"] != float64(2*oneMiB) || m["objects"] != 2.0 {
				t.Fatalf("raw dry run: %v", m)
			}

			batch := filepath.Join(t.TempDir(), "batch")
			writeFile(t, batch, fmt.Sprintf("rados:radoscp-a/%s rados:radoscp-b/%s 2M\nstriper:radoscp-a/%s striper:radoscp-b/%s\n", raw, raw, src, dst))
			r = dryRun(0, "--json", "--object-size", "1M", "--batch", batch)
			var actions []string
			for _, l := range jsonLines(t, r) {
				if l["dry_run"] != true {
					t.Fatalf("--batch --dry-run line without dry_run: %v", l)
				}
				actions = append(actions, l["dry_run_action"].(string))
			}
			if strings.Join(actions, " ") != "create replace" {
				t.Fatalf("--batch --dry-run: actions %q, want create replace\n%s", actions, r.stdout)
			}
		})
	}
}

// --dry-run of cp -r and migrate, normal and slow client: a line per path
// that would be copied, made or moved, the summary's counts, and nothing
// written: the tree is the same through the test's own libcephfs mount
// (paths, sizes, modes, mtimes, inodes) and the data pools hold the same objects (rados stat).
// After a real copy and a change of one file, a dry run names only that
// file; after a migrate, a dry run moves nothing.
func TestE2EDryRunCephFS(t *testing.T) {
	e := newSlowEnv(t, 0.5)
	for _, c := range e.clients() {
		t.Run(c.name, func(t *testing.T) {
			// cp -r SRC INTO copies to INTO/SRC, every run.
			src, into := "src-"+c.name, "into-"+c.name
			dst := into + "/" + src
			e.m.MakeDir(e.path(into), 0o755)
			data := filterTree(t, e, src)
			var total int
			for _, d := range data {
				total += len(d)
			}
			dryRun := func(args ...string) result {
				t.Helper()
				tree := e.treeState(t, "")
				pools := dataPoolState(t, e.conf, tree)
				if strings.Count(pools, "\n") < len(data) {
					t.Fatalf("only %d objects of the tree's %d files found in the data pools: the check would prove little", strings.Count(pools, "\n"), len(data))
				}
				r := runCmd(t, nil, append([]string{"-c", c.conf, "--no-progress", "--dry-run"}, args...)...)
				if r.code != 0 {
					t.Fatalf("%q: exit %d\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
				}
				if now := e.treeState(t, ""); now != tree {
					t.Fatalf("%q changed the tree:\nbefore:\n%s\nafter:\n%s", args, tree, now)
				}
				if now := dataPoolState(t, e.conf, tree); now != pools {
					t.Fatalf("%q wrote to the data pools:\nbefore:\n%s\nafter:\n%s", args, pools, now)
				}
				return r
			}
			r := dryRun("cp", "-r", "--json", "cephfs:"+e.path(src), "cephfs:"+e.path(into))
			lines := jsonLines(t, r)
			sum := lines[len(lines)-1]
			if sum["dry_run"] != true || sum["files"] != float64(len(data)) || sum["bytes"] != float64(total) || sum["dirs"] != 7.0 {
				t.Fatalf("dry-run summary %v, want %d files, %d bytes, 7 directories", sum, len(data), total)
			}
			for _, l := range lines[:len(lines)-1] {
				if l["dry_run"] != true || (l["outcome"] != "copied" && l["outcome"] != "dir") {
					t.Fatalf("dry-run line %v", l)
				}
			}
			r = dryRun("cp", "-r", "cephfs:"+e.path(src), "cephfs:"+e.path(into))
			if n := strings.Count(r.stdout, "would copy cephfs:"); n != len(data) ||
				!strings.Contains(r.stdout, "would make directory cephfs:"+e.path(dst+"/logs/2024")) ||
				!strings.Contains(r.stdout, "dry run: would copy 11 files") {
				t.Fatalf("text dry run (%d would-copy lines):\n%s", n, r.stdout)
			}

			if r := runCmd(t, nil, "cp", "-c", c.conf, "-r", "--no-progress", "cephfs:"+e.path(src), "cephfs:"+e.path(into)); r.code != 0 {
				t.Fatalf("real copy: exit %d: %s", r.code, r.stderr)
			}
			e.writeLocal(t, src+"/a.txt", 0, []byte("changed"))
			r = dryRun("cp", "-r", "cephfs:"+e.path(src), "cephfs:"+e.path(into))
			if !strings.Contains(r.stdout, "would copy cephfs:"+e.path(src+"/a.txt")) || strings.Count(r.stdout, "would copy cephfs:") != 1 ||
				!strings.Contains(r.stdout, "10 unchanged") {
				t.Fatalf("dry run after one change:\n%s", r.stdout)
			}

			r = dryRun("migrate", "--pool", "cephfs-ec", "--exclude", "*.tmp", "--json", "cephfs:"+e.path(src))
			lines = jsonLines(t, r)
			if sum := lines[len(lines)-1]; sum["files"] != 9.0 || sum["excluded"] != 2.0 || sum["dry_run"] != true {
				t.Fatalf("migrate dry-run summary %v", sum)
			}
			if r := runCmd(t, nil, "migrate", "-c", c.conf, "--no-progress", "--pool", "cephfs-ec", "cephfs:"+e.path(src)); r.code != 0 {
				t.Fatalf("real migrate: exit %d: %s", r.code, r.stderr)
			}
			r = dryRun("migrate", "--pool", "cephfs-ec", "cephfs:"+e.path(src))
			if !strings.Contains(r.stdout, "dry run: would copy 0 files") || !strings.Contains(r.stdout, "11 unchanged") {
				t.Fatalf("migrate dry run after the migrate:\n%s", r.stdout)
			}
		})
	}
}
