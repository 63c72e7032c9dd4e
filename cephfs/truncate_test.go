package cephfs_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// Growing and shrinking a file gives it the time of the truncate as its
// mtime, as ceph-fuse shows it, and the size: libcephfs's ceph_ftruncate
// gave a grown file an mtime decades off (an uninitialised struct stat's).
func TestTruncateSetsMtimeNow(t *testing.T) {
	fs := mount(t)
	fuse := test.FuseMount(t)
	p := "/" + test.UniqueName(t)
	f, err := fs.CreateExclusive(p, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Unlink(p)
	defer f.Close()
	for _, size := range []uint64{24 << 20, 5 << 20, 9<<20 + 1} {
		before := time.Now().Add(-time.Second) // stat shows whole seconds
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		after := time.Now().Add(time.Second)
		out := strings.Fields(test.Run(t, "stat", "-c", "%Y %s", fuse+p))
		sec, _ := strconv.ParseInt(out[0], 10, 64)
		if mtime := time.Unix(sec, 0); mtime.Before(before) || mtime.After(after) {
			t.Fatalf("truncated to %d: mtime %s, want the truncate's time (%s to %s)", size, mtime, before, after)
		}
		if out[1] != strconv.FormatUint(size, 10) {
			t.Fatalf("truncated to %d: size %s", size, out[1])
		}
	}
}
