package fscopy_test

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/rados/faults"
	"github.com/radoscp/radoscp/test"
)

// A failed copy keeps its staging file, cut back, for a resume. Its
// times are the copy's start, as the README promises (age-based cleanup
// of staging files relies on them), not the cut-back's: its mtime, read
// through ceph-fuse, is not later than the staging file's birth time
// (read by another libcephfs client), which the cut-back follows, nor
// earlier than the copy's start.
func TestStagingKeepsStartTimesAfterCutBack(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		src, dst := e.path("src"), e.path("dst")
		e.write(t, src, nil, 0o640, map[uint64][]byte{0: test.RandomData(30, 40<<20+4321)})
		in := faults.New(1, faults.Rule{Kind: faults.Copy, Nth: 5, Errno: syscall.EIO})
		var reports []fscopy.Report
		copier := mountCopier(t, slow)
		before := time.Now()
		if _, err := copier.copier(t, fscopy.Options{WrapObjects: in.Wrap, Copy: copyOpts(16)}, &reports).Copy(ctx, src, dst, false); err == nil {
			t.Fatal("copy with a failing copy-from succeeded")
		}
		if len(reports) != 1 || !reports[0].Result.CutBack {
			t.Fatalf("reports %+v; want one, cut back", reports)
		}
		staging := e.path(".radoscp.dst")
		stx, err := e.other.Statx(staging, gocephfs.StatxBasicStats|gocephfs.StatxBtime, 0)
		if err != nil {
			t.Fatal(err)
		}
		born := time.Unix(stx.Btime.Sec, stx.Btime.Nsec)
		out := test.Run(t, "stat", "-c", "%.9Y %.9Z", test.FuseMount(t)+staging)
		f := strings.Fields(out)
		mtime, ctime := parseStamp(t, f[0]), parseStamp(t, f[1])
		if mtime.After(born) {
			t.Errorf("staging file's mtime %s (ctime %s), later than its birth %s: not the copy's start", mtime, ctime, born)
		}
		if mtime.Before(before) {
			t.Errorf("staging file's mtime %s, before the copy began at %s", mtime, before)
		}
	})
}

// parseStamp parses stat's %.9Y: seconds and nanoseconds since the epoch.
func parseStamp(t *testing.T, s string) time.Time {
	t.Helper()
	sec, nsec, _ := strings.Cut(s, ".")
	a, err1 := strconv.ParseInt(sec, 10, 64)
	b, err2 := strconv.ParseInt(nsec, 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("stat gave %q", s)
	}
	return time.Unix(a, b)
}
