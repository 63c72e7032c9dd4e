package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// Erasure-coded pools (k=2, m=1, overwrites allowed; the test cluster's
// radoscp-ec and the CephFS data pool cephfs-ec), a common reason to
// migrate: into them and back out, on a normal and a slow client, checked
// by readers that are not radoscp.

// striperLayout is striped object name's layout as its xattrs say, read
// with `rados getxattr`.
func striperLayout(t *testing.T, conf, pool, name string) string {
	t.Helper()
	var parts []string
	for _, x := range []string{"striper.layout.stripe_unit", "striper.layout.stripe_count", "striper.layout.object_size"} {
		out, err := exec.Command("rados", "-c", conf, "-p", pool, "getxattr", name+".0000000000000000", x).Output()
		if err != nil {
			t.Fatalf("rados getxattr %s %s: %v", name, x, err)
		}
		parts = append(parts, x+"="+strings.TrimSpace(string(out)))
	}
	return strings.Join(parts, " ")
}

// Striped and raw copies into the EC pool and back: byte-exact (rados
// --striper get, rados get), the striped layout kept, and copy-from used
// (the objects go by offload: no client fallback).
func TestE2EErasureCodedStriperAndRaw(t *testing.T) {
	conf := test.Conf(t)
	for _, c := range confs(t, conf) {
		t.Run(c.name, func(t *testing.T) {
			src, data := makeStriperSource(t, conf, "radoscp-a", 5*oneMiB+12345)
			wantLayout := striperLayout(t, conf, "radoscp-a", src)
			from := "striper:radoscp-a/" + src
			for i, pool := range []string{"radoscp-ec", "radoscp-b"} {
				dst := test.UniqueName(t) + fmt.Sprint(i)
				t.Cleanup(func() { removeStriper(t, conf, pool, dst) })
				r := runCmd(t, nil, "cp", "-c", c.conf, "--json", "--no-progress", "--object-size", "1M", from, "striper:"+pool+"/"+dst)
				if r.code != 0 {
					t.Fatalf("striper into %s: exit %d: %s", pool, r.code, r.stderr)
				}
				if m := parseJSON(t, r); m["objects"] == 0.0 {
					t.Fatalf("striper into %s: no object went by copy-from: %s", pool, r.stdout)
				}
				if size := checkPublishedPrefix(t, conf, pool, dst, data); size != uint64(len(data)) {
					t.Fatalf("striper into %s: %d of %d bytes", pool, size, len(data))
				}
				if got := striperLayout(t, conf, pool, dst); got != wantLayout {
					t.Fatalf("striper into %s: layout %s, want %s", pool, got, wantLayout)
				}
				from = "striper:" + pool + "/" + dst // and back out of the EC pool
			}

			rawName := test.UniqueName(t) + "r"
			rawData := writeObjects(t, test.OpenPool(t, conf, "radoscp-a"), rawName, 3, oneMiB)
			srcRaw := "rados:radoscp-a/" + rawName
			for i, pool := range []string{"radoscp-ec", "radoscp-b"} {
				dst := test.UniqueName(t) + fmt.Sprint("raw", i)
				p := test.OpenPool(t, conf, pool)
				cleanupObjects(t, p, dst, 3)
				r := runCmd(t, nil, "cp", "-c", c.conf, "--json", "--no-progress", "--object-size", "1M", "--length", "3M",
					srcRaw, "rados:"+pool+"/"+dst)
				if r.code != 0 {
					t.Fatalf("raw into %s: exit %d: %s", pool, r.code, r.stderr)
				}
				if m := parseJSON(t, r); m["objects"] != 3.0 {
					t.Fatalf("raw into %s: want 3 objects by copy-from: %s", pool, r.stdout)
				}
				if got := radosBytes(t, conf, pool, dst, 0, 3*oneMiB); !bytes.Equal(got, bytes.Join(rawData, nil)) {
					t.Fatalf("raw into %s: differs at %d", pool, firstDiff(got, bytes.Join(rawData, nil)))
				}
				srcRaw = "rados:" + pool + "/" + dst
			}
		})
	}
}

// fuseXattr reads xattr name of p through the ceph-fuse mount (getxattr(2)).
func fuseXattr(t *testing.T, e *slowEnv, p, name string) string {
	t.Helper()
	buf := make([]byte, 4096)
	n, err := syscall.Getxattr(e.local(p), name, buf)
	if err != nil {
		t.Fatalf("getxattr %s %s through ceph-fuse: %v", p, name, err)
	}
	return string(buf[:n])
}

// fileLayout is p's ceph.file.layout as ceph-fuse shows it, without the
// pool.
func fileLayout(t *testing.T, e *slowEnv, p string) (layout, pool string) {
	t.Helper()
	out := fuseXattr(t, e, p, "ceph.file.layout")
	var rest []string
	for _, f := range strings.Fields(out) {
		if v, ok := strings.CutPrefix(f, "pool="); ok {
			pool = v
			continue
		}
		rest = append(rest, f)
	}
	return strings.Join(rest, " "), pool
}

// migrate a tree from the replicated data pool into the EC one and back:
// every file is in the new pool with its layout otherwise unchanged, and
// the tree is the reference copy's in content and metadata (diff -r,
// rsync -a --checksum through ceph-fuse, user xattrs with getfattr).
func TestE2EErasureCodedMigrate(t *testing.T) {
	for _, delay := range []float64{0, 1} {
		t.Run(map[bool]string{true: "normal", false: "slow"}[delay == 0], func(t *testing.T) {
			e := newSlowEnv(t, max(delay, 0.01))
			conf := e.conf
			if delay > 0 {
				conf = e.slow
			}
			e.m.MakeDir(e.path("tree"), 0o755)
			e.m.MakeDir(e.path("tree/sub"), 0o750)
			e.write(t, "tree/big", test.RandomData(21, 9<<20+4097))
			e.write(t, "tree/sub/small", []byte("small"))
			e.write(t, "tree/empty", nil)
			if err := e.m.SetXattr(e.path("tree/big"), "user.note", []byte("kept"), 0); err != nil {
				t.Fatal(err)
			}
			r := runCmd(t, nil, "cp", "-c", e.conf, "-r", "--no-progress", "cephfs:"+e.path("tree"), "cephfs:"+e.path("ref"))
			if r.code != 0 {
				t.Fatalf("reference copy: exit %d: %s", r.code, r.stderr)
			}
			layouts := map[string]string{}
			for _, f := range []string{"tree/big", "tree/sub/small", "tree/empty"} {
				layouts[f], _ = fileLayout(t, e, f)
			}
			for _, pool := range []string{"cephfs-ec", "cephfs_data"} {
				r := runCmd(t, nil, "migrate", "-c", conf, "--pool", pool, "--window", "2", "--no-progress", "--json", "cephfs:"+e.path("tree"))
				if r.code != 0 {
					t.Fatalf("migrate to %s: exit %d\nstdout: %s\nstderr: %s", pool, r.code, r.stdout, r.stderr)
				}
				for f, want := range layouts {
					if l, p := fileLayout(t, e, f); p != pool || l != want {
						t.Fatalf("migrate to %s: %s has layout %q in pool %s; want %q in %s", pool, f, l, p, want, pool)
					}
				}
				e.same(t, "ref", "tree", "--omit-dir-times")
				if v := fuseXattr(t, e, "tree/big", "user.note"); v != "kept" {
					t.Fatalf("migrate to %s: user.note = %q", pool, v)
				}
				for _, n := range e.names(t, "tree") {
					if strings.HasPrefix(n, ".radoscp.") {
						t.Fatalf("migrate to %s left staging file %s", pool, n)
					}
				}
			}
		})
	}
}
