package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// Holes in rados: sources, end to end, on a normal and a slow client, read
// back with the rados CLI.

// radosBytes reads [off, off+n) of the raw file prefix (1 MiB objects) in
// pool with `rados get`, a missing object or bytes past an object's end
// reading as zeros.
func radosBytes(t *testing.T, conf, pool, prefix string, off, n int) []byte {
	t.Helper()
	out := make([]byte, n)
	tmp := filepath.Join(t.TempDir(), "obj")
	for obj := off / oneMiB; obj*oneMiB < off+n; obj++ {
		oid := objName(prefix, obj)
		if o, err := exec.Command("rados", "-c", conf, "-p", pool, "get", oid, tmp).CombinedOutput(); err != nil {
			if strings.Contains(string(o), "No such file") {
				continue
			}
			t.Fatalf("rados get %s: %v: %s", oid, err, o)
		}
		data, err := os.ReadFile(tmp)
		if err != nil {
			t.Fatal(err)
		}
		base := obj * oneMiB
		for i, b := range data {
			if at := base + i; at >= off && at < off+n {
				out[at-off] = b
			}
		}
	}
	return out
}

// A rados: source range in which no object exists is refused with ENOENT
// (exit 1), naming the first missing object, before anything is written;
// --allow-missing copies it as a hole.
func TestE2EMissingSource(t *testing.T) {
	conf := test.Conf(t)
	for _, c := range confs(t, conf) {
		t.Run(c.name, func(t *testing.T) {
			src, dst := test.UniqueName(t), test.UniqueName(t)
			a, b := test.OpenPool(t, conf, "radoscp-a"), test.OpenPool(t, conf, "radoscp-b")
			writeObjects(t, a, src, 2, oneMiB)
			cleanupObjects(t, b, dst, 4)
			for _, tc := range []struct {
				name  string
				args  []string
				first string
			}{
				{"mistyped name", []string{"--length", "4M", "rados:radoscp-a/" + src + "x", "rados:radoscp-b/" + dst}, objName(src+"x", 0)},
				{"offset past the objects", []string{"--src-offset", "3M", "--length", "2M", "rados:radoscp-a/" + src, "rados:radoscp-b/" + dst}, objName(src, 3)},
			} {
				r := runCmd(t, nil, append([]string{"cp", "-c", c.conf, "--object-size", "1M", "--no-progress"}, tc.args...)...)
				if r.code != 1 || !strings.Contains(r.stderr, "ENOENT") || !strings.Contains(r.stderr, "radoscp-a/"+tc.first) ||
					!strings.Contains(r.stderr, "--allow-missing") {
					t.Fatalf("%s: exit %d, stderr %q; want 1 with ENOENT naming %s and --allow-missing", tc.name, r.code, r.stderr, tc.first)
				}
				if left := listNamed(t, conf, "radoscp-b", dst); len(left) != 0 {
					t.Fatalf("%s: a refused copy wrote %v", tc.name, left)
				}
			}
			// Deliberately: a hole over old destination objects (a
			// ranged copy, so they are not replaced first; --dst-size
			// their true EOF, as a set holding data past it is
			// refused) leaves them reading as zeros, here removed by
			// the copy-from path.
			stale := writeObjects(t, b, dst, 3, oneMiB)
			r := runCmd(t, nil, "cp", "-c", c.conf, "--object-size", "1M", "--no-progress", "--allow-missing",
				"--src-offset", "2M", "--dst-offset", "1M", "--dst-size", "3M", "--length", "2M",
				"rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
			if r.code != 0 {
				t.Fatalf("--allow-missing: exit %d: %s", r.code, r.stderr)
			}
			if got := radosBytes(t, conf, "radoscp-b", dst, oneMiB, 2*oneMiB); !bytes.Equal(got, make([]byte, 2*oneMiB)) {
				t.Fatal("--allow-missing: the hole does not read as zeros over the stale objects")
			}
			absent(t, b, objName(dst, 1))
			absent(t, b, objName(dst, 2))
			if got := radosBytes(t, conf, "radoscp-b", dst, 0, oneMiB); !bytes.Equal(got, stale[0]) {
				t.Fatal("--allow-missing: data below --dst-size changed")
			}
		})
	}
}

// One hole rule on both paths: a source with a missing object copied over
// old destination objects (what a killed run leaves; given in --dst-size,
// as a set holding data past it is refused) is byte-exact, zeros in the
// hole, whether copy-from or the client moves the bytes (aligned, or
// misaligned by 1000 bytes with 256 KiB chunks).
func TestE2EHoleOverStaleObjects(t *testing.T) {
	conf := test.Conf(t)
	for _, c := range confs(t, conf) {
		t.Run(c.name, func(t *testing.T) {
			for _, dstOff := range []int{oneMiB, oneMiB + 1000} {
				src, dst := test.UniqueName(t), test.UniqueName(t)
				a, b := test.OpenPool(t, conf, "radoscp-a"), test.OpenPool(t, conf, "radoscp-b")
				data := writeObjects(t, a, src, 4, oneMiB)
				if err := a.Remove(objName(src, 2)); err != nil {
					t.Fatal(err)
				}
				clear(data[2])
				stale := writeObjects(t, b, dst, 6, oneMiB)
				for i := range stale {
					for k := range stale[i] {
						stale[i][k] = 0xee
					}
					if err := b.WriteFull(objName(dst, i), stale[i]); err != nil {
						t.Fatal(err)
					}
				}
				r := runCmd(t, nil, "cp", "-c", c.conf, "--object-size", "1M", "--no-progress", "--chunk", "256K", "--json",
					"--dst-offset", strconv.Itoa(dstOff), "--dst-size", "6M", "--length", "4M",
					"rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
				if r.code != 0 {
					t.Fatalf("dst offset %d: exit %d: %s", dstOff, r.code, r.stderr)
				}
				m := parseJSON(t, r)
				if fallback := m["fallback"] == true; fallback != (dstOff%oneMiB != 0) {
					t.Fatalf("dst offset %d: fallback %v: want the %s path: %s", dstOff, m["fallback"],
						map[bool]string{true: "client", false: "copy-from"}[dstOff%oneMiB != 0], r.stdout)
				}
				want := bytes.Join(data, nil)
				if got := radosBytes(t, conf, "radoscp-b", dst, dstOff, 4*oneMiB); !bytes.Equal(got, want) {
					t.Fatalf("dst offset %d: the copy differs from the source at %d", dstOff, firstDiff(got, want))
				}
			}
		})
	}
}
