package address

import (
	"path"
	"strconv"
	"strings"
	"testing"
)

func TestParseAddressValid(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Address
	}{
		{"rados:pool/prefix", Address{Scheme: Rados, Pool: "pool", Name: "prefix"}},
		{"rados:pool/ns/prefix", Address{Scheme: Rados, Pool: "pool", Namespace: "ns", Name: "prefix"}},
		{"striper:p/name", Address{Scheme: Striper, Pool: "p", Name: "name"}},
		{"striper:p/ns/name.with.dots", Address{Scheme: Striper, Pool: "p", Namespace: "ns", Name: "name.with.dots"}},
		{"rados:radoscp-a/a:b", Address{Scheme: Rados, Pool: "radoscp-a", Name: "a:b"}},
		{"rados:p/ünïcode", Address{Scheme: Rados, Pool: "p", Name: "ünïcode"}},
		{"rados:p/ spaced name ", Address{Scheme: Rados, Pool: "p", Name: " spaced name "}},
		{"cephfs:/some/path", Address{Scheme: CephFS, Path: "/some/path"}},
		{"cephfs:/", Address{Scheme: CephFS, Path: "/"}},
		{"cephfs:/a//b/../c/", Address{Scheme: CephFS, Path: "/a/c"}},
		{"cephfs:myfs:/dir/file:with:colons", Address{Scheme: CephFS, FS: "myfs", Path: "/dir/file:with:colons"}},
	} {
		got, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		tc.want.Raw = tc.in
		if got != tc.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
		if got.String() != tc.in {
			t.Errorf("String() = %q, want %q", got.String(), tc.in)
		}
	}
}

func TestParseAddressInvalid(t *testing.T) {
	for _, tc := range []struct {
		in, wantMsg string
	}{
		{"", "expected SCHEME"},
		{"pool/prefix", "expected SCHEME"},
		{"s3:bucket/key", `unknown scheme "s3"`},
		{"RADOS:p/x", `unknown scheme "RADOS"`},
		{":p/x", `unknown scheme ""`},
		{"cephfs:relative/path", "expected cephfs:/PATH or cephfs:FSNAME:/PATH"},
		{"cephfs:", "expected cephfs:/PATH"},
		{"cephfs::/x", "expected cephfs:/PATH"},
		{"cephfs:fs:relative", `path "relative" is not absolute`},
		{"cephfs:/a\x00b", "control character"},
		{"rados:pool", "expected rados:POOL/NAME"},
		{"rados:", "expected rados:POOL/NAME"},
		{"rados:a/b/c/d", "expected rados:POOL/NAME"},
		{"striper:p/ns/x/y", "expected striper:POOL/NAME"},
		{"rados:/prefix", "empty pool"},
		{"rados:pool/", "empty object name"},
		{"rados:pool/ns/", "empty object name"},
		{"rados:pool//x", "empty namespace"},
		{"rados:/ns/x", "empty pool"},
		{"rados:p/a\x00b", "control character"},
		{"rados:p\n/x", "control character"},
		{"rados:p/n\x7fs/x", "control character"},
		{"striper:p/\tname", "control character"},
	} {
		_, err := Parse(tc.in)
		if err == nil {
			t.Errorf("Parse(%q): no error", tc.in)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.wantMsg) {
			t.Errorf("Parse(%q) = %q, want it to mention %q", tc.in, msg, tc.wantMsg)
		}
		if quoted := strconv.Quote(tc.in); !strings.Contains(msg, quoted) {
			t.Errorf("Parse(%q) = %q, does not name the value %s", tc.in, msg, quoted)
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("Parse(%q): message spans lines: %q", tc.in, msg)
		}
	}
}

func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{
		"rados:pool/prefix", "rados:pool/ns/prefix", "striper:p/name", "cephfs:/x",
		"", ":", "rados:", "rados://", "rados:a/b/c/d", "x:y/z", "rados:p/\x00", "striper:p/ns/ünï",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := Parse(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error for %q: %q", s, err)
			}
			return
		}
		if a.Raw != s {
			t.Fatalf("Raw = %q, want %q", a.Raw, s)
		}
		if a.Scheme == CephFS {
			if !strings.HasPrefix(a.Path, "/") || path.Clean(a.Path) != a.Path || strings.ContainsAny(a.Path+a.FS, "\x00\n\x7f") {
				t.Fatalf("bad CephFS path accepted: %+v", a)
			}
			checkCephFSAddress(t, s, a)
			return
		}
		if a.Scheme != Rados && a.Scheme != Striper {
			t.Fatalf("accepted scheme %q in %q", a.Scheme, s)
		}
		if a.Pool == "" || a.Name == "" {
			t.Fatalf("empty pool or name accepted: %+v", a)
		}
		for _, field := range []string{a.Pool, a.Namespace, a.Name} {
			if strings.Contains(field, "/") {
				t.Fatalf("field %q contains '/': %+v", field, a)
			}
			for _, r := range field {
				if r < 0x20 || r == 0x7f {
					t.Fatalf("control character accepted: %+v", a)
				}
			}
		}
		re := string(a.Scheme) + ":" + a.Pool + "/"
		if a.Namespace != "" {
			re += a.Namespace + "/"
		}
		re += a.Name
		if re != s {
			t.Fatalf("fields do not rebuild %q: got %q", s, re)
		}
		b, err := Parse(re)
		if err != nil || b != a {
			t.Fatalf("round trip of %q: %+v, %v; want %+v", re, b, err, a)
		}
	})
}

// checkCephFSAddress checks what Parse accepted as a cephfs:
// address: an absolute, clean path, no control characters, no pool, and
// the same address again when rebuilt from its fields.
func checkCephFSAddress(t *testing.T, s string, a Address) {
	t.Helper()
	if a.Pool != "" || a.Namespace != "" || a.Name != "" {
		t.Fatalf("cephfs address %q has rados fields: %+v", s, a)
	}
	if !strings.HasPrefix(a.Path, "/") || path.Clean(a.Path) != a.Path {
		t.Fatalf("cephfs address %q: path %q is not absolute and clean", s, a.Path)
	}
	if strings.ContainsAny(a.FS, "/:") && !strings.HasPrefix(s, "cephfs:"+a.FS+":") {
		t.Fatalf("cephfs address %q: file system %q", s, a.FS)
	}
	for _, field := range []string{a.FS, a.Path} {
		for _, r := range field {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("control character accepted: %+v", a)
			}
		}
	}
	re := "cephfs:" + a.Path
	if a.FS != "" {
		re = "cephfs:" + a.FS + ":" + a.Path
	}
	b, err := Parse(re)
	if err != nil || b.FS != a.FS || b.Path != a.Path {
		t.Fatalf("round trip of %q via %q: %+v, %v; want %+v", s, re, b, err, a)
	}
}
