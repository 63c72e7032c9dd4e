package main

import (
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// --version's API is the release tag the build was given (make passes
// build/ceph-tag.sh's), or go-ceph's newest without one.
func TestCephAPINamesTheTag(t *testing.T) {
	want := "newest"
	for _, tag := range strings.Split(test.BuildTags(), ",") {
		switch tag {
		case "pacific", "quincy", "reef", "squid", "tentacle":
			want = tag
		}
	}
	if !strings.Contains(cephAPI, want) {
		t.Errorf("built with -tags %q, --version says %q: want it to name %s", test.BuildTags(), cephAPI, want)
	}
}
