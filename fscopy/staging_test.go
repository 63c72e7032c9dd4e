package fscopy

import (
	"strings"
	"testing"
)

func TestStagingPath(t *testing.T) {
	if got := stagingPath("/a/b/file", 0); got != "/a/b/.radoscp.file" {
		t.Fatalf("stagingPath = %q", got)
	}
	if got := stagingPath("/a/b/file", 1); got != "/a/b/.radoscp-2.file" {
		t.Fatalf("second staging path = %q", got)
	}
	long := "/d/" + strings.Repeat("x", 250)
	got := stagingPath(long, 0)
	base := got[len("/d/"):]
	if !strings.HasPrefix(got, "/d/.radoscp.") || len(base) > 255 || got == stagingPath("/d/"+strings.Repeat("y", 250), 0) {
		t.Fatalf("long name: %q", got)
	}
	for _, s := range []string{"file", "fs", "off", ""} {
		if _, err := ParseSync(s); err != nil {
			t.Errorf("ParseSync(%q): %v", s, err)
		}
	}
	if _, err := ParseSync("sometimes"); err == nil || !strings.Contains(err.Error(), "sometimes") {
		t.Fatalf("ParseSync(sometimes): %v", err)
	}
}

// No staging name of one destination, file or hard link, is a staging
// name of another: a hard link X and a file link.X, or a file 2.X, each
// have names of their own.
func TestStagingNamesDoNotCollide(t *testing.T) {
	seen := map[string]string{}
	for _, base := range []string{"X", "link.X", "-link.X", "2.X", "-2.X", "link-2.X", ".radoscp.X"} {
		for k := range stagingNames {
			for _, link := range []bool{false, true} {
				name := stagingName(base, k, link)
				who := base + map[bool]string{false: " file", true: " link"}[link]
				if other, ok := seen[name]; ok {
					t.Fatalf("%s is a staging name of %s and of %s", name, other, who)
				}
				seen[name] = who
			}
		}
	}
	if !isStagingMark(".radoscp-3.X", []byte("X")) || isStagingMark(".radoscp.X", []byte("link.X")) || isStagingMark(".radoscp-link.X", []byte("X")) {
		t.Fatal("isStagingMark")
	}
}
