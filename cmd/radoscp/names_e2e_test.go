package main

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// Names with a newline, 0xFF bytes, and two that differ only in bytes
// that are not UTF-8, normal and slow client: a dry run's text prints
// one line per path, each name quoted as ls --quoting-style=shell-escape
// does; --json tells the two apart by src_b64/dst_b64, which decode to
// the exact bytes. The copy is checked through ceph-fuse.
func TestE2ENamesQuotedAndLossless(t *testing.T) {
	e := newSlowEnv(t, 0.5)
	raw := []string{"new\nline", "\xff\xfe", "\xff\xfd", "a b"}
	quoted := []string{`new\nline'`, `\377\376'`, `\377\375'`, `/a b'`}
	for _, c := range e.clients() {
		t.Run(c.name, func(t *testing.T) {
			src, dst := "src-"+c.name, "dst-"+c.name
			e.m.MakeDir(e.path(src), 0o755)
			for i, n := range raw {
				e.write(t, src+"/"+n, test.RandomData(uint64(300+i), 4096))
			}
			args := []string{"cp", "-c", c.conf, "-r", "--no-progress", "cephfs:" + e.path(src) + "/", "cephfs:" + e.path(dst)}
			r := runCmd(t, nil, append(args, "--dry-run")...)
			if r.code != 0 {
				t.Fatalf("dry run: exit %d\n%s", r.code, r.stderr)
			}
			lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
			if len(lines) != len(raw)+2 { // the files, the target directory, the summary
				t.Errorf("dry run: %d lines, want %d (one per path and the summary):\n%s", len(lines), len(raw)+2, r.stdout)
			}
			for _, q := range quoted {
				found := false
				for _, l := range lines {
					found = found || strings.HasPrefix(l, "would copy ") && strings.Contains(l, q+" -> ")
				}
				if !found {
					t.Errorf("dry run: no line names %s quoted:\n%s", q, r.stdout)
				}
			}
			r = runCmd(t, nil, append(args, "--json")...)
			if r.code != 0 {
				t.Fatalf("copy: exit %d\n%s", r.code, r.stderr)
			}
			got := map[string]string{} // raw bytes of src -> of dst
			for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
				var m struct {
					Src, Dst, Outcome string
					SrcB64            string `json:"src_b64"`
					DstB64            string `json:"dst_b64"`
				}
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("%v: %s", err, l)
				}
				if m.Outcome != "copied" {
					continue
				}
				s, d := m.Src, m.Dst
				if m.SrcB64 != "" {
					b, err := base64.StdEncoding.DecodeString(m.SrcB64)
					if err != nil {
						t.Fatal(err)
					}
					s = string(b)
				}
				if m.DstB64 != "" {
					b, err := base64.StdEncoding.DecodeString(m.DstB64)
					if err != nil {
						t.Fatal(err)
					}
					d = string(b)
				}
				got[s] = d
			}
			check := func(what string) {
				t.Helper()
				for _, n := range raw {
					if d, ok := got[e.path(src+"/"+n)]; !ok || d != "cephfs:"+e.path(dst+"/"+n) && d != e.path(dst+"/"+n) {
						t.Errorf("%s: %q paired with %q (found %v), want %q", what, n, d, ok, e.path(dst+"/"+n))
					}
				}
			}
			check("cp --json")
			e.same(t, src, dst)
			// An error naming a file prints the name's bytes escaped, on
			// the error's one line.
			for i, n := range raw[:2] {
				r = runCmd(t, nil, "cp", "-c", c.conf, "--no-clobber", "--no-progress", "cephfs:"+e.path(src+"/"+n), "cephfs:"+e.path(dst+"/"+n))
				want := []string{`new\nline`, `\377\376`}[i]
				if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); r.code != 2 || len(lines) != 1 || !strings.Contains(lines[0], want) {
					t.Errorf("no-clobber onto %q: exit %d, want 2 and one line naming %s:\n%s", n, r.code, want, r.stderr)
				}
			}
			// verify's lines carry the same lossless names.
			r = runCmd(t, nil, "verify", "-c", c.conf, "-r", "--json", "cephfs:"+e.path(src), "cephfs:"+e.path(dst))
			if r.code != 0 {
				t.Fatalf("verify: exit %d\n%s", r.code, r.stderr)
			}
			got = map[string]string{}
			for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
				var m struct {
					Src, Dst string
					SrcB64   string `json:"src_b64"`
				}
				var d struct {
					DstB64 string `json:"dst_b64"`
				}
				if json.Unmarshal([]byte(l), &m) != nil || json.Unmarshal([]byte(l), &d) != nil {
					t.Fatalf("verify: %s", l)
				}
				s, dd := m.Src, m.Dst
				if b, err := base64.StdEncoding.DecodeString(m.SrcB64); m.SrcB64 != "" && err == nil {
					s = string(b)
				}
				if b, err := base64.StdEncoding.DecodeString(d.DstB64); d.DstB64 != "" && err == nil {
					dd = string(b)
				}
				got[strings.TrimPrefix(s, "cephfs:")] = dd
			}
			check("verify --json")
		})
	}
}
