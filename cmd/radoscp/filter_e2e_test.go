package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// filterTree writes the tree the filter tests copy, under dir: what each
// rule of filterArgs leaves out, and what it keeps. It returns each
// file's data.
func filterTree(t *testing.T, e *slowEnv, dir string) map[string][]byte {
	t.Helper()
	data := map[string][]byte{}
	for _, d := range []string{"", "/cache", "/sub", "/sub/cache", "/logs", "/logs/2024", "/logs/2024/05"} {
		if err := e.m.MakeDir(e.path(dir+d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i, f := range []string{"a.txt", "b.tmp", "cache/x", "sub/cache/y", "sub/c.tmp", "sub/d.txt",
		"logs/keep.log", "logs/drop.log", "logs/new.gz", "logs/2024/05/old.gz", "logs/2024/05/old.txt"} {
		data[f] = test.RandomData(uint64(40+i), 1<<20+i*4099)
		e.write(t, dir+"/"+f, data[f])
	}
	return data
}

var (
	filterArgs = []string{"--exclude", "*.tmp", "--exclude", "cache/", "--include", "/logs/keep.log",
		"--exclude", "/logs/*.log", "--exclude", "logs/**/*.gz"}
	filterKept     = []string{"a.txt", "sub/d.txt", "logs/keep.log", "logs/2024/05/old.txt"}
	filterExcluded = []string{"b.tmp", "cache", "sub/cache", "sub/c.tmp", "logs/drop.log", "logs/new.gz", "logs/2024/05/old.gz"}
)

// cp -r with --exclude and --include, normal and slow client: the copy is
// the source less what the rules leave out, as rsync applying the same
// rules finds it through ceph-fuse (contents, modes, times), and no
// excluded path exists in it; the summary counts the excluded paths.
func TestE2ETreeFilter(t *testing.T) {
	e := newSlowEnv(t, 0.5)
	filterTree(t, e, "src")
	for _, c := range e.clients() {
		t.Run(c.name, func(t *testing.T) {
			dst := "dst-" + c.name
			args := append([]string{"cp", "-c", c.conf, "-r", "--no-progress"}, filterArgs...)
			r := runCmd(t, nil, append(args, "cephfs:"+e.path("src"), "cephfs:"+e.path(dst))...)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, "4 files") || !strings.Contains(r.stdout, ", 7 excluded") ||
				!regexp.MustCompile(`; in [0-9.]+s, [0-9.]+ MiB/s; into cephfs:\S+\n`).MatchString(r.stdout) {
				t.Fatalf("summary %q: want 4 files, 7 excluded, the time and rate", r.stdout)
			}
			for _, p := range filterExcluded {
				if _, err := os.Lstat(e.local(dst + "/" + p)); !os.IsNotExist(err) {
					t.Errorf("excluded %s is in the copy (%v)", p, err)
				}
			}
			for _, p := range filterKept {
				test.Run(t, "cmp", e.local("src/"+p), e.local(dst+"/"+p))
			}
			// rsync's rules read the same for these patterns (its **
			// needs a directory between, hence the extra rule).
			rs := []string{"-a", "-n", "-i", "--checksum", "--exclude", "*.tmp", "--exclude", "cache/", "--include", "/logs/keep.log",
				"--exclude", "/logs/*.log", "--exclude", "/logs/**/*.gz", "--exclude", "/logs/*.gz",
				e.local("src") + "/", e.local(dst) + "/"}
			if out := test.Run(t, "rsync", rs...); strings.TrimSpace(out) != "" {
				t.Fatalf("rsync with the same rules finds differences:\n%s", out)
			}
		})
	}
}

// Bad patterns and filters outside tree copies exit 2, writing nothing.
func TestE2EFilterBadInput(t *testing.T) {
	e := newFSEnv(t)
	e.write(t, "f", []byte("x"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-r", "--exclude", "[a"}, "syntax error in pattern"},
		{[]string{"-r", "--include", "a**"}, "whole path elements"},
		{[]string{"--exclude", "*.tmp"}, "apply with -r"},
	} {
		r := runCmd(t, nil, append(append([]string{"cp", "-c", e.conf, "--no-progress"}, c.args...), "cephfs:"+e.path("f"), "cephfs:"+e.path("g"))...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	if _, ok := e.read(t, "g"); ok {
		t.Fatal("a refused copy wrote its destination")
	}
	r := runCmd(t, nil, "cp", "-c", e.conf, "--exclude", "x", "--length", "1", "rados:radoscp-a/x", "rados:radoscp-b/y")
	if r.code != 2 || !strings.Contains(r.stderr, "cephfs: copies only") {
		t.Errorf("--exclude on a rados: copy: exit %d, %q", r.code, r.stderr)
	}
}

// migrate with rules moves only what they take; a second migrate has
// nothing to do and says so in its summary, with no line per file.
func TestE2EMigrateFilterAndRerun(t *testing.T) {
	e := newSlowEnv(t, 0.5)
	for _, c := range e.clients() {
		t.Run(c.name, func(t *testing.T) {
			tree, pool := "tree-"+c.name, "cephfs-ec"
			data := filterTree(t, e, tree)
			args := append(append([]string{"migrate", "-c", c.conf, "--no-progress", "--pool", pool}, filterArgs...), "cephfs:"+e.path(tree))
			r := runCmd(t, nil, args...)
			if r.code != 0 || !strings.Contains(r.stdout, "4 files") || !strings.Contains(r.stdout, "7 excluded") {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			for _, p := range filterKept {
				if _, got := fileLayout(t, e, tree+"/"+p); got != pool {
					t.Errorf("%s is in pool %s, want %s", p, got, pool)
				}
				if got, err := os.ReadFile(e.local(tree + "/" + p)); err != nil || !bytes.Equal(got, data[p]) {
					t.Errorf("%s through ceph-fuse after the migrate: %v, or its data differs", p, err)
				}
			}
			for _, p := range []string{"b.tmp", "cache/x", "sub/c.tmp", "logs/drop.log", "logs/2024/05/old.gz"} {
				if _, got := fileLayout(t, e, tree+"/"+p); got == pool {
					t.Errorf("excluded %s was moved to %s", p, pool)
				}
			}
			again := runCmd(t, nil, args...)
			if again.code != 0 || !strings.Contains(again.stdout, "0 files") || !strings.Contains(again.stdout, "4 unchanged") {
				t.Fatalf("rerun: exit %d\nstdout: %s\nstderr: %s", again.code, again.stdout, again.stderr)
			}
			if strings.Contains(again.stderr, "already in pool") || strings.Contains(again.stderr, e.path(tree)) {
				t.Fatalf("rerun printed a line per unchanged file:\n%s", again.stderr)
			}
		})
	}
}
