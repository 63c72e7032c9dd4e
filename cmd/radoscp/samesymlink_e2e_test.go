package main

import (
	"os"
	"syscall"
	"testing"
)

// A rerun of cp -r, normal and slow client, leaves alone a symlink that
// is already the one the copy would make (same target, owner and mtime:
// the same inode through ceph-fuse) and re-creates one whose source now
// points elsewhere; under --no-clobber a file identical to its source is
// reported unchanged, one that differs skipped. Read through ceph-fuse
// (lstat, readlink), never through radoscp.
func TestE2ERerunLeavesSameSymlinks(t *testing.T) {
	e := newSlowEnv(t, 0.5)
	e.m.MakeDir(e.path("src"), 0o755)
	e.write(t, "src/f", []byte("same"))
	e.write(t, "src/g", []byte("differs at the destination"))
	for _, l := range []string{"link", "moved"} {
		if err := e.m.Symlink("f", e.path("src/"+l)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range e.clients() {
		t.Run(c.name, func(t *testing.T) {
			dst := "dst-" + c.name
			cp := func(extra ...string) map[string]string {
				t.Helper()
				args := append([]string{"cp", "-c", c.conf, "-r", "--json", "--no-progress"}, extra...)
				r := runCmd(t, nil, append(args, "cephfs:"+e.path("src")+"/", "cephfs:"+e.path(dst))...)
				if r.code != 0 {
					t.Fatalf("cp %q: exit %d\nstdout: %s\nstderr: %s", extra, r.code, r.stdout, r.stderr)
				}
				out := map[string]string{}
				for _, l := range jsonLines(t, r) {
					if s, ok := l["src"].(string); ok && l["outcome"] != "dir" {
						out[s[len(e.path("src"))+1:]] = l["outcome"].(string)
					}
				}
				return out
			}
			ino := func(p string) uint64 {
				st, err := os.Lstat(e.local(dst + "/" + p))
				if err != nil {
					t.Fatal(err)
				}
				return st.Sys().(*syscall.Stat_t).Ino
			}
			cp()
			link, moved := ino("link"), ino("moved")
			if got := cp(); got["link"] != "unchanged" || got["moved"] != "unchanged" {
				t.Fatalf("a rerun: %v; want both symlinks unchanged", got)
			}
			if ino("link") != link || ino("moved") != moved {
				t.Fatal("a rerun re-created an identical symlink (its inode changed)")
			}
			if err := os.Remove(e.local("src/moved")); err != nil {
				t.Fatal(err)
			}
			elsewhere := "elsewhere-" + c.name
			if err := os.Symlink(elsewhere, e.local("src/moved")); err != nil {
				t.Fatal(err)
			}
			if got := cp(); got["link"] != "unchanged" || got["moved"] != "symlink" {
				t.Fatalf("a rerun after src/moved changed: %v; want link unchanged, moved symlink", got)
			}
			if target, err := os.Readlink(e.local(dst + "/moved")); err != nil || target != elsewhere || ino("link") != link {
				t.Fatalf("%s/moved -> %q (%v), want the new target; link's inode %d, was %d", dst, target, err, ino("link"), link)
			}
			if err := os.Chmod(e.local(dst+"/g"), 0o600); err != nil {
				t.Fatal(err)
			}
			if got := cp("--no-clobber"); got["f"] != "unchanged" || got["g"] != "skipped" || got["link"] != "unchanged" {
				t.Fatalf("--no-clobber rerun: %v; want f and link unchanged, g skipped", got)
			}
			if st, err := os.Stat(e.local(dst + "/g")); err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("--no-clobber changed %s/g: %v %v", dst, st, err)
			}
		})
	}
}
