package fscopy_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

// What rctime pruning (prune.go) relies on, on the test cluster's Ceph,
// read through ceph-fuse: a removal and a rename move their directory's
// rctime; a directory's rctime in a snapshot moves on with the live
// directory after the snapshot (mds_snap_rstat is off: a snapshot's
// rctime can be too new, never older than its changes once propagated);
// a write through one name of a hard link moves the rctime of the
// primary name's directory only.
func TestPruneRctimeFacts(t *testing.T) {
	fuse := test.FuseMount(t)
	e := newEnv(t)
	dir := fuse + e.dir
	sh(t, dir, "mkdir a b c h1 h2 && echo 1 > a/f && echo 2 > b/x && echo 3 > c/y && echo 4 > h1/f && ln h1/f h2/l")
	test.RctimeCaughtUp(t, dir, []string{"a/f", "b/x", "c/y", "h1/f", "h2/l"})
	e.snapshot(t, "s1")
	btime := strings.TrimSpace(sh(t, dir, "getfattr --only-values -n ceph.snap.btime .snap/s1"))
	rctime := func(p string) string {
		return strings.TrimSpace(sh(t, dir, "getfattr --only-values -n ceph.dir.rctime "+p))
	}
	for _, d := range []string{"a", "b", "c", "h1", "h2"} {
		if !test.CephTimeBefore(rctime(".snap/s1/"+d), btime) {
			t.Fatalf("s1/%s: rctime %s, not before the snapshot's btime %s", d, rctime(".snap/s1/"+d), btime)
		}
	}

	sh(t, dir, "echo more >> a/f && rm b/x && mv c/y c/z && echo 5 >> h2/l")
	test.RctimeCaughtUp(t, dir, []string{"a/f", "b/.", "c/z", "h1/f"})
	for _, d := range []string{"a", "b", "c", "h1"} {
		if test.CephTimeBefore(rctime(d), btime) {
			t.Fatalf("%s: rctime %s after its change, before the snapshot's btime %s", d, rctime(d), btime)
		}
	}
	if got, head := rctime(".snap/s1/a"), rctime("a"); got != head {
		t.Fatalf("s1/a: rctime %s, the live a's %s: snapshot rstats are frozen here, prune.go's reasoning does not hold", got, head)
	}
	if !test.CephTimeBefore(rctime("h2"), btime) {
		t.Fatalf("h2 (the link's other name): rctime %s moved past %s", rctime("h2"), btime)
	}
}

// A copy of a live tree, or of a snapshot into a target that records
// none, walks the whole tree and says why; a dry run neither removes
// nor writes the record, nor does a copy refused because another holds
// the target.
func TestIncrementalFallsBack(t *testing.T) {
	fuse := test.FuseMount(t)
	e := newEnv(t)
	c := mountCopier(t, 0)
	dir := fuse + e.dir
	incrementalSource(t, dir)
	sh(t, dir, "mkdir out")
	sum, err := c.copier(t, incrementalOpts(), nil).Copy(ctx, e.path("src")+"/", e.path("out"), true)
	if err != nil || sum.Scan != fscopy.ScanFull || !strings.Contains(sum.ScanReason, "not a snapshot") || sum.Pruned != 0 {
		t.Fatalf("copy of the live tree: %+v, %v", sum, err)
	}
	if out := sh(t, dir, "getfattr --absolute-names -d -m user.radoscp out"); out != "" {
		t.Fatalf("a copy of a live tree left a record: %q", out)
	}
	e.snapshot(t, "s1")
	o := incrementalOpts()
	o.DryRun = true
	sum, err = c.copier(t, o, nil).Copy(ctx, e.path(".snap", "s1", "src")+"/", e.path("out"), true)
	if err != nil || sum.Scan != fscopy.ScanFull || sum.ScanReason != "the target records no complete copy of a snapshot" {
		t.Fatalf("dry run: %+v, %v", sum, err)
	}
	if out := sh(t, dir, "getfattr --absolute-names -d -m user.radoscp out"); out != "" {
		t.Fatalf("a dry run wrote a record: %q", out)
	}
	sum, err = c.copier(t, incrementalOpts(), nil).Copy(ctx, e.path(".snap", "s1", "src")+"/", e.path("out"), true)
	if err != nil || sum.Scan != fscopy.ScanFull {
		t.Fatalf("copy of s1: %+v, %v", sum, err)
	}
	if out := sh(t, dir, "getfattr --only-values -n user.radoscp.synced out"); !strings.Contains(out, `"snapshot":"s1"`) {
		t.Fatalf("record after the copy of s1: %q", out)
	}
	// Another copy holds the target: refused, and the record stays.
	held, err := mountCopier(t, 0).fs.OpenRead(e.path("out"))
	if err != nil {
		t.Fatal(err)
	}
	if err := held.TryLock(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.copier(t, incrementalOpts(), nil).Copy(ctx, e.path(".snap", "s1", "src")+"/", e.path("out"), true); !errors.Is(err, fscopy.ErrBusy) {
		t.Fatalf("copy of s1 while another copy holds the target: %v; want ErrBusy", err)
	}
	if out := sh(t, dir, "getfattr --only-values -n user.radoscp.synced out"); !strings.Contains(out, `"snapshot":"s1"`) {
		t.Fatalf("record after a copy refused for the lock: %q", out)
	}
	held.Close()
	// The same snapshot again: every directory unchanged.
	if sum, err = c.copier(t, incrementalOpts(), nil).Copy(ctx, e.path(".snap", "s1", "src")+"/", e.path("out"), true); err != nil || sum.Scan != fscopy.ScanRctime || sum.Pruned != untouched+len(changes) {
		t.Fatalf("copy of s1 again: %+v, %v", sum, err)
	}
}
