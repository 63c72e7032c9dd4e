package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// Range copies into an existing raw object set, end to end, on a normal
// and a slow client, read back with the rados CLI.

// radosStat is the size `rados stat` gives oid in pool, or -1 when the
// object does not exist.
func radosStat(t *testing.T, conf, pool, oid string) int {
	t.Helper()
	out, err := test.RadosCLI(conf, "-p", pool, "stat", oid)
	if err != nil {
		if strings.Contains(err.Error(), "No such file") {
			return -1
		}
		t.Fatalf("rados stat %s/%s: %v", pool, oid, err)
	}
	f := strings.Fields(string(out))
	n, err := strconv.Atoi(f[len(f)-1])
	if err != nil {
		t.Fatalf("rados stat %s/%s: %q", pool, oid, out)
	}
	return n
}

// A range copy into a raw set that holds data at or past --dst-size (0,
// "empty", by default) in the object sets it writes past it is refused,
// exit 2, naming the object and --dst-size, before anything is written: a
// failure would have cut those sets back to that EOF, removing data before
// and after the range (the copy's client may not write object 1, so this
// one fails mid-copy). With the set's true EOF the same copy runs, fails
// at object 1, and every byte outside what it wrote is as it was.
func TestE2ERangeIntoDataPastDstSizeRefused(t *testing.T) {
	conf := test.Conf(t)
	for _, c := range confs(t, conf) {
		t.Run(c.name, func(t *testing.T) {
			src, dst, client := test.UniqueName(t), test.UniqueName(t), test.UniqueName(t)
			a, b := test.OpenPool(t, conf, "radoscp-a"), test.OpenPool(t, conf, "radoscp-b")
			data := writeObjects(t, a, src, 8, oneMiB)
			old := bytes.Join(writeObjects(t, b, dst, 8, oneMiB), nil)
			keyring := test.Client(t, client, "mon", "allow r", "osd", restrictedCaps(dst, func(i int) bool { return i != 1 }))
			cp := func(extra ...string) result {
				args := []string{"cp", "-c", c.conf, "--id", client, "--keyring", keyring, "--no-progress", "--json",
					"--object-size", "1M", "--dst-offset", "512K", "--length", "6M"}
				return runCmd(t, nil, append(append(args, extra...), "rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)...)
			}
			unchanged := func(what string) {
				t.Helper()
				for i := 0; i < 8; i++ {
					if n := radosStat(t, conf, "radoscp-b", objName(dst, i)); n != oneMiB {
						t.Fatalf("%s: rados stat %s: size %d, want %d", what, objName(dst, i), n, oneMiB)
					}
				}
				if got := radosBytes(t, conf, "radoscp-b", dst, 0, 8*oneMiB); !bytes.Equal(got, old) {
					t.Fatalf("%s: the destination changed at %d", what, firstDiff(got, old))
				}
				if left := listNamed(t, conf, "radoscp-b", dst+".radoscp-lock"); len(left) != 0 {
					t.Fatalf("%s: a refused copy left %v", what, left)
				}
			}
			for _, tc := range []struct {
				name  string
				extra []string
				first int
			}{
				{"no --dst-size", nil, 0},
				{"--dst-size too small", []string{"--dst-size", "4M"}, 4},
			} {
				r := cp(tc.extra...)
				if r.code != 2 || !strings.Contains(r.stderr, "radoscp-b/"+objName(dst, tc.first)) || !strings.Contains(r.stderr, "--dst-size") {
					t.Fatalf("%s: exit %d, stderr %q; want 2 naming object %d and --dst-size", tc.name, r.code, r.stderr, tc.first)
				}
				unchanged(tc.name)
			}
			// --dry-run is refused alike.
			if r := runCmd(t, nil, "cp", "-c", c.conf, "--dry-run", "--object-size", "1M", "--dst-offset", "512K", "--length", "6M",
				"rados:radoscp-a/"+src, "rados:radoscp-b/"+dst); r.code != 2 || !strings.Contains(r.stderr, "--dst-size") {
				t.Fatalf("--dry-run: exit %d, stderr %q; want 2", r.code, r.stderr)
			}

			// The true EOF: the copy runs, and fails at object 1.
			r := cp("--dst-size", "8M")
			m := parseJSON(t, r)
			if r.code == 0 || r.code == 2 || !strings.Contains(r.stderr, "EPERM") || m["serial"] != true {
				t.Fatalf("--dst-size 8M: exit %d, want a failure at object 1 (EPERM), serial:\n%s%s", r.code, r.stdout, r.stderr)
			}
			if m["bytes"].(float64) > oneMiB/2 || m["published_eof"] != float64(8*oneMiB) {
				t.Fatalf("--dst-size 8M: the failure did not land at object 1: %s", r.stdout)
			}
			got := radosBytes(t, conf, "radoscp-b", dst, 0, 8*oneMiB)
			// Below the range, the old data; in object 0's part of it,
			// old or new (the write that failed spans objects 0 and 1,
			// and one object's write is atomic).
			if !bytes.Equal(got[:oneMiB/2], old[:oneMiB/2]) {
				t.Fatalf("--dst-size 8M: the data before --dst-offset changed at %d", firstDiff(got[:oneMiB/2], old[:oneMiB/2]))
			}
			if part := got[oneMiB/2 : oneMiB]; !bytes.Equal(part, old[oneMiB/2:oneMiB]) && !bytes.Equal(part, data[0][:oneMiB/2]) {
				t.Fatal("--dst-size 8M: object 0's part of the range is neither the old data nor the new")
			}
			// Past it nothing was written, nothing cut back.
			if !bytes.Equal(got[oneMiB:], old[oneMiB:]) {
				t.Fatalf("--dst-size 8M: the data past object 0 changed at %d", oneMiB+firstDiff(got[oneMiB:], old[oneMiB:]))
			}
			for i := 1; i < 8; i++ {
				if n := radosStat(t, conf, "radoscp-b", objName(dst, i)); n != oneMiB {
					t.Fatalf("--dst-size 8M: rados stat %s: size %d, want %d", objName(dst, i), n, oneMiB)
				}
			}
		})
	}
}

// The check stats only the object sets a range copy writes past
// --dst-size: data elsewhere (below --dst-size, or past the range's last
// set) does not refuse the copy, which runs with its window when it
// starts at or past --dst-size.
func TestE2ERangePastDstSizeBesideData(t *testing.T) {
	conf := test.Conf(t)
	src, dst := test.UniqueName(t), test.UniqueName(t)
	a, b := test.OpenPool(t, conf, "radoscp-a"), test.OpenPool(t, conf, "radoscp-b")
	data := bytes.Join(writeObjects(t, a, src, 2, oneMiB), nil)
	old := bytes.Join(writeObjects(t, b, dst, 8, oneMiB), nil)
	if err := b.Remove(objName(dst, 3)); err != nil {
		t.Fatal(err)
	}
	if err := b.Remove(objName(dst, 4)); err != nil {
		t.Fatal(err)
	}
	// Bytes [3M, 5M) are a hole; the set's EOF, as the copy is told, 3M.
	r := runCmd(t, nil, "cp", "-c", conf, "--no-progress", "--json", "--window", "4", "--object-size", "1M",
		"--dst-offset", "3M", "--dst-size", "3M", "--length", "2M", "rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
	if r.code != 0 {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if m := parseJSON(t, r); m["serial"] != false || m["published_eof"] != float64(5*oneMiB) {
		t.Fatalf("want a parallel copy publishing EOF 5M: %s", r.stdout)
	}
	want := bytes.Clone(old)
	copy(want[3*oneMiB:], data)
	if got := radosBytes(t, conf, "radoscp-b", dst, 0, 8*oneMiB); !bytes.Equal(got, want) {
		t.Fatalf("the destination differs at %d", firstDiff(got, want))
	}
}
