package names

import (
	"encoding/base64"
	"testing"
)

// Names are quoted as ls --quoting-style=shell-escape quotes them, and
// the lossless form gives back the exact bytes of a name JSON would
// change.
func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a/b-c_d.e", "a/b-c_d.e"},
		{"cephfs:/a/b", "cephfs:/a/b"},
		{"a b", "'a b'"},
		{"it's", `'it'\''s'`},
		{"a\nb", `$'a\nb'`},
		{"\xff", `$'\377'`},
		{"x\xfe'y", `$'x\376\'y'`},
		{"é", "é"},
		{"", "''"},
	} {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	if Lossless("a b") != "" {
		t.Error("a valid UTF-8 name has a lossless form")
	}
	for _, s := range []string{"\xff\xfe", "\xff\xfd"} {
		b, err := base64.StdEncoding.DecodeString(Lossless(s))
		if err != nil || string(b) != s {
			t.Errorf("Lossless(%q) decodes to %q, %v", s, b, err)
		}
	}
}

// Runs without a cluster: a message keeps its words and quotes, and a
// name inside it stays on the line with its bytes visible.
func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"copy cephfs:/a b -> cephfs:/c: EIO", "copy cephfs:/a b -> cephfs:/c: EIO"},
		{"cephfs:/new\nline: source changed", `cephfs:/new\nline: source changed`},
		{"cephfs:/\xff\xfe exists", `cephfs:/\377\376 exists`},
		{"café 'x'", "café 'x'"},
	} {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
