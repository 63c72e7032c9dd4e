package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// rados runs the rados CLI, the reader and writer that is not radoscp.
func radosCmd(t *testing.T, conf string, args ...string) string {
	t.Helper()
	out, err := test.RadosCLI(conf, args...)
	if err != nil {
		t.Fatalf("rados %q: %v\n%s", args, err, out)
	}
	return string(out)
}

// verifyJSON is the "verify" object of a cp --json line.
type verifyJSON struct {
	Same        bool     `json:"same"`
	Objects     uint64   `json:"objects"`
	Bytes       uint64   `json:"bytes"`
	ClientBytes uint64   `json:"client_bytes"`
	Differences []string `json:"differences"`
}

func parseVerify(t *testing.T, line string) verifyJSON {
	t.Helper()
	var out struct {
		Verify *verifyJSON `json:"verify"`
	}
	if err := json.Unmarshal([]byte(line), &out); err != nil || out.Verify == nil {
		t.Fatalf("no verify object in %q: %v", line, err)
	}
	return *out.Verify
}

// A striped object copied with --verify is verified by OSD checksums
// with under 1% of its bytes crossing the client; each way of corrupting
// the copy afterwards with the rados CLI is found by radoscp verify and
// named; a fresh whole copy makes it identical again.
func TestE2EVerifyStriper(t *testing.T) {
	conf := test.Conf(t)
	name, data := makeStriperSource(t, conf, "radoscp-a", 5<<20+12345) // 1 MiB objects: 6
	dst := test.UniqueName(t)
	t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
	src, to := "striper:radoscp-a/"+name, "striper:radoscp-b/"+dst
	copyVerified := func() {
		t.Helper()
		r := runCmd(t, nil, "cp", "-c", conf, "--object-size", "1M", "--verify", "--json", "--no-progress", src, to)
		if r.code != 0 {
			t.Fatalf("cp --verify: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		v := parseVerify(t, r.stdout)
		if !v.Same || v.Bytes != uint64(len(data)) || v.Objects != 6 || v.ClientBytes*100 >= v.Bytes {
			t.Fatalf("cp --verify found %+v; want 6 objects, %d bytes the same, under 1%% through the client", v, len(data))
		}
	}
	// A destination of another layout cannot be verified by checksums:
	// said, exit 1, never "verified".
	other := test.UniqueName(t)
	t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", other) })
	r := runCmd(t, nil, "cp", "-c", conf, "--verify", "--json", "--no-progress", src, "striper:radoscp-b/"+other)
	if v := parseVerify(t, r.stdout); r.code != 1 || v.Same || !strings.Contains(r.stderr, "--verify=client") {
		t.Fatalf("cp --verify across layouts: exit %d, verify %+v, %q; want 1, not same, pointing to --verify=client", r.code, v, r.stderr)
	}
	r = runCmd(t, nil, "cp", "-c", conf, "--verify=client", "--json", "--no-progress", src, "striper:radoscp-b/"+other)
	if v := parseVerify(t, r.stdout); r.code != 0 || !v.Same || v.ClientBytes != 2*uint64(len(data)) {
		t.Fatalf("cp --verify=client across layouts: exit %d, verify %+v; want the same, every byte read twice", r.code, v)
	}
	copyVerified()
	if r := runCmd(t, nil, "verify", "-c", conf, src, to); r.code != 0 || !strings.Contains(r.stdout, "identical") {
		t.Fatalf("verify of an exact copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	obj := func(i int) string { return fmt.Sprintf("%s.%016x", dst, i) }
	dir := t.TempDir()
	for _, c := range []struct {
		name    string
		corrupt func()
		object  string
		want    string
	}{
		{"other bytes put", func() {
			file := filepath.Join(dir, "other")
			os.WriteFile(file, test.RandomData(9, 1<<20), 0o600)
			radosCmd(t, conf, "-p", "radoscp-b", "put", obj(2), file)
		}, obj(2), "data differs"},
		{"one byte changed", func() {
			file := filepath.Join(dir, "one")
			radosCmd(t, conf, "-p", "radoscp-b", "get", obj(3), file)
			b, _ := os.ReadFile(file)
			b[1000] ^= 1
			os.WriteFile(file, b, 0o600)
			radosCmd(t, conf, "-p", "radoscp-b", "put", obj(3), file)
		}, obj(3), "data differs"},
		{"a truncated object", func() { radosCmd(t, conf, "-p", "radoscp-b", "truncate", obj(4), "1000") }, obj(4), "not zeros"},
		{"an extra object past EOF", func() {
			file := filepath.Join(dir, "extra")
			os.WriteFile(file, []byte("stale"), 0o600)
			radosCmd(t, conf, "-p", "radoscp-b", "put", obj(7), file)
		}, obj(7), "past the end"},
		{"a missing object", func() { radosCmd(t, conf, "-p", "radoscp-b", "rm", obj(1)) }, obj(1), "hole"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.corrupt()
			r := runCmd(t, nil, "verify", "-c", conf, src, to)
			if r.code != 1 || !strings.Contains(r.stderr, "radoscp-b/"+c.object) || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("verify after %s: exit %d, stderr %q; want 1 naming %s: %q", c.name, r.code, r.stderr, c.object, c.want)
			}
			if c.object == obj(7) {
				radosCmd(t, conf, "-p", "radoscp-b", "rm", obj(7))
			}
			copyVerified()
		})
	}
}

// A raw object set copied with --verify, and verified again.
func TestE2EVerifyRaw(t *testing.T) {
	conf, src, dst, _, _, _ := copySetup(t, 4)
	r := runCmd(t, nil, "cp", "-c", conf, "--object-size", "1M", "--length", "4M", "--verify", "--json", "--no-progress",
		"rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if v := parseVerify(t, r.stdout); !v.Same || v.Objects != 4 {
		t.Fatalf("verify %+v", v)
	}
	radosCmd(t, conf, "-p", "radoscp-b", "truncate", objName(dst, 2), "10")
	r = runCmd(t, nil, "verify", "-c", conf, "--object-size", "1M", "--length", "4M", "rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
	if r.code != 1 || !strings.Contains(r.stderr, objName(dst, 2)) {
		t.Fatalf("verify of a truncated object: exit %d, %q", r.code, r.stderr)
	}
	if r := runCmd(t, nil, "verify", "-c", conf, "rados:radoscp-a/"+src, "rados:radoscp-b/"+dst); r.code != 2 || !strings.Contains(r.stderr, "--length") {
		t.Fatalf("verify of raw sets without --length: exit %d, %q; want 2 naming --length", r.code, r.stderr)
	}
}

// A CephFS tree copied with --verify (slow client too), verified with
// verify -r; then a file's mode and another's mtime changed through
// ceph-fuse are reported, each naming the file.
func TestE2EVerifyCephFSTree(t *testing.T) {
	e := newSlowEnv(t, 0.5)
	e.m.MakeDir(e.path("src"), 0o755)
	e.m.MakeDir(e.path("src/sub"), 0o750)
	e.write(t, "src/big", test.RandomData(51, 9<<20+7))
	e.write(t, "src/sub/small", []byte("small"))
	e.m.Symlink("big", e.path("src/link"))
	// One target per client, named by its index: names taken from the
	// confs' path lengths collided when the temporary directories'
	// lengths did, and the second copy went into the first's target.
	for i, conf := range []string{e.conf, e.slow} {
		dst := "dst" + fmt.Sprint(i)
		r := runCmd(t, nil, "cp", "-r", "-c", conf, "--verify", "--json", "--no-progress", "cephfs:"+e.path("src"), "cephfs:"+e.path(dst))
		if r.code != 0 {
			t.Fatalf("cp -r --verify: exit %d\n%s", r.code, r.stderr)
		}
		verified := 0
		for _, l := range jsonLines(t, r)[:len(jsonLines(t, r))-1] {
			if res, ok := l["result"].(map[string]any); ok {
				v, _ := res["verify"].(map[string]any)
				if v == nil || v["same"] != true {
					t.Fatalf("file %v not verified: %v", l["src"], res)
				}
				verified++
			}
		}
		if verified != 2 {
			t.Fatalf("%d files verified, want 2", verified)
		}
		e.same(t, "src", dst)
	}
	dst := "dst0" // the copy by the normal client
	if r := runCmd(t, nil, "verify", "-r", "-c", e.conf, "cephfs:"+e.path("src"), "cephfs:"+e.path(dst)); r.code != 0 {
		t.Fatalf("verify -r of an exact copy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if err := os.Chmod(e.local(dst+"/sub/small"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := os.Chtimes(e.local(dst+"/big"), old, old); err != nil {
		t.Fatal(err)
	}
	r := runCmd(t, nil, "verify", "-r", "-c", e.conf, "cephfs:"+e.path("src"), "cephfs:"+e.path(dst))
	if r.code != 1 || !strings.Contains(r.stderr, dst+"/sub/small: mode 0600") || !strings.Contains(r.stderr, dst+"/big: mtime 2001-02-03") {
		t.Fatalf("verify -r after chmod and touch: exit %d, stderr %q", r.code, r.stderr)
	}
}

// migrate verifies by default (--verify=false to skip), and says so in
// its JSON.
func TestE2EMigrateVerifiesByDefault(t *testing.T) {
	e := newFSEnv(t)
	e.write(t, "a", test.RandomData(61, 6<<20))
	e.write(t, "b", test.RandomData(62, 3<<20))
	r := runCmd(t, nil, "migrate", "-c", e.conf, "--pool", "cephfs_data2", "--json", "--no-progress", "cephfs:"+e.path(""))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	lines := jsonLines(t, r)
	for _, l := range lines[:len(lines)-1] {
		res, _ := l["result"].(map[string]any)
		if v, _ := res["verify"].(map[string]any); v == nil || v["same"] != true {
			t.Fatalf("%v migrated without verification: %v", l["src"], l)
		}
	}
	r = runCmd(t, nil, "migrate", "-c", e.conf, "--pool", "cephfs_data", "--verify=false", "--json", "--no-progress", "cephfs:"+e.path(""))
	if r.code != 0 || strings.Contains(r.stdout, `"verify"`) {
		t.Fatalf("--verify=false: exit %d, %s", r.code, r.stdout)
	}
}

// A copy from a CephFS snapshot is verified against the snapshot, not
// head: cp --verify passes, verify of the snapshot and the copy finds them
// the same, and verify of head and the copy finds the head's new bytes.
func TestE2EVerifySnapshotSource(t *testing.T) {
	e := newSlowEnv(t, 0.2)
	e.m.MakeDir(e.path("sv"), 0o755)
	e.write(t, "sv/f", test.RandomData(91, 9<<20))
	snap := e.snapshotFS(t, "sv", "v1")
	f, err := os.OpenFile(e.local("sv/f"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt(test.RandomData(92, 5<<20), 0)
	f.Close()
	from := "cephfs:" + e.path(snap+"/f")
	r := runCmd(t, nil, "cp", "-c", e.conf, "--verify", "--json", "--no-progress", from, "cephfs:"+e.path("copy"))
	if r.code != 0 {
		t.Fatalf("cp --verify from the snapshot: exit %d\n%s", r.code, r.stderr)
	}
	if res, _ := jsonLines(t, r)[0]["result"].(map[string]any); res == nil || res["verify"].(map[string]any)["same"] != true {
		t.Fatalf("not verified: %s", r.stdout)
	}
	if r := runCmd(t, nil, "verify", "-c", e.conf, from, "cephfs:"+e.path("copy")); r.code != 0 {
		t.Fatalf("verify snapshot vs copy: exit %d\n%s", r.code, r.stderr)
	}
	if r := runCmd(t, nil, "verify", "-c", e.conf, "cephfs:"+e.path("sv/f"), "cephfs:"+e.path("copy")); r.code != 1 || !strings.Contains(r.stderr, "data differs") {
		t.Fatalf("verify head vs the snapshot's copy: exit %d, %q; want the overwritten data found", r.code, r.stderr)
	}
}
