package fscopy

import (
	"strings"
	"testing"
)

func TestStagingPath(t *testing.T) {
	if got := stagingPath("/a/b/file"); got != "/a/b/.radoscp.file" {
		t.Fatalf("stagingPath = %q", got)
	}
	long := "/d/" + strings.Repeat("x", 250)
	got := stagingPath(long)
	base := got[len("/d/"):]
	if !strings.HasPrefix(got, "/d/.radoscp.") || len(base) > 255 || got == stagingPath("/d/"+strings.Repeat("y", 250)) {
		t.Fatalf("long name: %q", got)
	}
	if !IsStaging(".radoscp.x") || IsStaging("radoscp.x") {
		t.Fatal("IsStaging")
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
