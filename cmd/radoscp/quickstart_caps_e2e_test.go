package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// quickStartCaps is the README's one-client command: the lines from
// "ceph auth get-or-create client.radoscp" to the first that does not
// end with a backslash.
func quickStartCaps(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(readme), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != `ceph auth get-or-create client.radoscp \` {
			continue
		}
		var cmd []string
		for _, l := range lines[i:] {
			cmd = append(cmd, strings.TrimSpace(l))
			if !strings.HasSuffix(l, `\`) {
				return strings.Join(cmd, "\n")
			}
		}
	}
	t.Fatal("README.md has no `ceph auth get-or-create client.radoscp \\` command")
	return ""
}

// The quick start's one client can make every kind of copy: the README's
// very command (its pools, client name and keyring path substituted) makes
// a client with which a striped, a raw and a CephFS tree copy, a migrate, a
// verify and a subvolume clone all succeed, each checked by a reader that
// is not radoscp.
func TestE2EQuickStartCaps(t *testing.T) {
	conf := test.FS(t)
	fuse := test.FuseMount(t)
	command := quickStartCaps(t)
	name := "qs" + test.UniqueName(t)[len(test.UniqueName(t))-10:]
	keyring := filepath.Join(t.TempDir(), "quickstart.keyring")
	for _, r := range []struct{ old, new string }{
		{"/etc/ceph/ceph.client.radoscp.keyring", keyring},
		{"client.radoscp", "client." + name},
		{"pool=rbd-src", "pool=radoscp-a"},
		{"pool=backup", "pool=radoscp-b"},
		{"pool backup", "pool radoscp-b"},
	} {
		if !strings.Contains(command, r.old) {
			t.Fatalf("the README's command lacks %q:\n%s", r.old, command)
		}
		command = strings.ReplaceAll(command, r.old, r.new)
	}
	mk := exec.Command("bash", "-euc", command)
	mk.Env = append(os.Environ(), "CEPH_CONF="+conf)
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("the README's command: %v\n%s\n%s", err, command, out)
	}
	t.Cleanup(func() { exec.Command("ceph", "-c", conf, "auth", "del", "client."+name).Run() })
	if fi, err := os.Stat(keyring); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("keyring %s: %v, %v; want mode 600", keyring, fi, err)
	}
	// Why the README does not use fs authorize: it refuses a client that
	// has other caps.
	if out, err := exec.Command("ceph", "-c", conf, "fs", "authorize", "cephfs", "client."+name, "/", "rw").CombinedOutput(); err == nil ||
		!strings.Contains(string(out), "EINVAL") && !strings.Contains(string(out), "Invalid argument") {
		t.Errorf("ceph fs authorize on the quick start's client: %v, %s; want EINVAL, as the README says", err, out)
	}
	as := []string{"-c", conf, "--id", name, "--keyring", keyring}
	run := func(what string, args ...string) {
		t.Helper()
		r := runCmd(t, nil, append(append([]string{args[0]}, as...), args[1:]...)...)
		if r.code != 0 {
			t.Fatalf("%s with the quick start's client: exit %d\nstderr: %s", what, r.code, r.stderr)
		}
	}

	// A striped object, read back with rados --striper.
	src := putStriper(t, conf, "radoscp-a", 5<<20+123)
	_, want := striperRead(t, conf, "radoscp-a", src)
	dst := test.UniqueName(t)
	t.Cleanup(func() { exec.Command("rados", "-c", conf, "-p", "radoscp-b", "--striper", "rm", dst).Run() })
	run("striper cp", "cp", "striper:radoscp-a/"+src, "striper:radoscp-b/"+dst)
	if _, got := striperRead(t, conf, "radoscp-b", dst); !bytes.Equal(got, want) {
		t.Fatal("the striped copy differs from its source (rados --striper get)")
	}
	run("verify", "verify", "striper:radoscp-a/"+src, "striper:radoscp-b/"+dst)

	// A raw object set of two 1 MiB objects, read back with rados get.
	prefix := test.UniqueName(t)
	dir := t.TempDir()
	for i, o := range []string{".00000000", ".00000001"} {
		data := test.RandomData(uint64(i), 1<<20)
		in := filepath.Join(dir, "in"+o)
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := test.RadosCLI(conf, "-p", "radoscp-a", "put", prefix+o, in); err != nil {
			t.Fatalf("rados put: %v\n%s", err, out)
		}
		t.Cleanup(func() {
			exec.Command("rados", "-c", conf, "-p", "radoscp-a", "rm", prefix+o).Run()
			exec.Command("rados", "-c", conf, "-p", "radoscp-b", "rm", prefix+o).Run()
		})
	}
	run("raw cp", "cp", "--object-size", "1M", "--length", "2M", "rados:radoscp-a/"+prefix, "rados:radoscp-b/"+prefix)
	for _, o := range []string{".00000000", ".00000001"} {
		out := filepath.Join(dir, "out"+o)
		if msg, err := test.RadosCLI(conf, "-p", "radoscp-b", "get", prefix+o, out); err != nil {
			t.Fatalf("rados get: %v\n%s", err, msg)
		}
		if msg, err := exec.Command("cmp", filepath.Join(dir, "in"+o), out).CombinedOutput(); err != nil {
			t.Fatalf("raw copy of %s differs: %s", prefix+o, msg)
		}
	}

	// A CephFS tree, then a migrate of the copy, checked through ceph-fuse.
	e := newFSEnv(t)
	if err := e.m.MakeDirs(e.path("tree/sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write(t, "tree/a", test.RandomData(3, 3<<20))
	e.write(t, "tree/sub/b", test.RandomData(4, 70000))
	run("cp -r", "cp", "-r", "cephfs:"+e.path("tree"), "cephfs:"+e.path("copy"))
	if out, err := exec.Command("diff", "-r", fuse+e.path("tree"), fuse+e.path("copy")).CombinedOutput(); err != nil {
		t.Fatalf("diff -r through ceph-fuse: %v\n%s", err, out)
	}
	run("migrate", "migrate", "--pool", "cephfs_data2", "cephfs:"+e.path("copy"))
	if got := test.Run(t, "getfattr", "--only-values", "-n", "ceph.file.layout.pool", fuse+e.path("copy/a")); got != "cephfs_data2" {
		t.Fatalf("migrated file's pool (getfattr through ceph-fuse) %q, want cephfs_data2", got)
	}
	if out, err := exec.Command("diff", "-r", fuse+e.path("tree"), fuse+e.path("copy")).CombinedOutput(); err != nil {
		t.Fatalf("diff -r after migrate: %v\n%s", err, out)
	}

	// A subvolume clone, checked as the clone tests check one.
	sv := "qs" + test.UniqueName(t)[len(test.UniqueName(t))-8:]
	s := newSubvolume(t, fuse, sv, 0)
	target := sv + "-clone"
	removeSubvolumeAtEnd(t, conf, target)
	run("subvolume clone", "subvolume", "clone", "cephfs", sv, s.snap, target)
	s.checkClone(t, target)
}
