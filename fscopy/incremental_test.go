package fscopy_test

import (
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

// Incremental copies of snapshots (prune.go), checked through ceph-fuse.

// change is one kind of change between two snapshots: made by setup
// (a shell script in the source, before the first snapshot) and change
// (after it); touched are the paths, relative to the source, whose
// directories' rctime must show the change before the next snapshot is
// copied (their parents are waited for).
type change struct {
	name, setup, change string
	touched             []string
}

// changes are the changes an incremental copy must carry, one directory
// each, so that every other directory of the tree is unchanged.
var changes = []change{
	{"same size, mtime restored", "echo aaaa > c1/f", `t=$(stat -c %y c1/f) && echo bbbb > c1/f && touch -d "$t" c1/f`, []string{"c1/f"}},
	{"grown", "echo a > c2/f", "echo more >> c2/f", []string{"c2/f"}},
	{"shrunk", "echo abcdef > c3/f", "truncate -s 3 c3/f", []string{"c3/f"}},
	{"truncated to a hole", "head -c 70000 /dev/urandom > c4/f", "truncate -s 0 c4/f && truncate -s 70000 c4/f", []string{"c4/f"}},
	{"hole filled", "truncate -s 3000000 c5/f", "printf X | dd of=c5/f bs=1 seek=1500000 conv=notrunc 2>/dev/null", []string{"c5/f"}},
	{"file replaced by a directory", "echo f > c6/x", "rm c6/x && mkdir c6/x && echo in > c6/x/y", []string{"c6/x/y"}},
	{"directory replaced by a file", "mkdir c7/x && echo y > c7/x/y", "rm -r c7/x && echo f > c7/x", []string{"c7/x"}},
	{"file replaced by a directory and back", "echo one > c8/x", "rm c8/x && mkdir c8/x && rmdir c8/x && echo one > c8/x", []string{"c8/x"}},
	{"renamed within a directory", "echo r > c9/a", "mv c9/a c9/b", []string{"c9/b"}},
	{"renamed across directories", "mkdir c10/from c10/to && echo r > c10/from/a", "mv c10/from/a c10/to/a", []string{"c10/to/a", "c10/from/."}},
	{"mode", "echo m > c11/f", "chmod 600 c11/f", []string{"c11/f"}},
	{"owner", "echo o > c12/f", "chown 1234:5678 c12/f", []string{"c12/f"}},
	{"xattr", "echo x > c13/f", "setfattr -n user.k -v v2 c13/f", []string{"c13/f"}},
	{"ACL", "echo a > c14/f", "setfacl -m u:4321:rw c14/f", []string{"c14/f"}},
	{"symlink retargeted", "echo t > c15/t1 && echo u > c15/t2 && ln -s t1 c15/l", "ln -sfn t2 c15/l", []string{"c15/l"}},
	{"file deleted", "echo d > c16/f && echo k > c16/k", "rm c16/f", []string{"c16/."}},
	{"subtree deleted", "mkdir -p c17/t/u && echo d > c17/t/u/f", "rm -r c17/t", []string{"c17/."}},
	{"deep change", "mkdir -p c18/a/b/c && echo d > c18/a/b/c/f && mkdir -p c18/a/q && echo q > c18/a/q/f", "echo e >> c18/a/b/c/f", []string{"c18/a/b/c/f"}},
	{"hard link added", "echo h > c19/f && mkdir c19/o", "ln c19/f c19/o/g", []string{"c19/o/g", "c19/f"}},
}

// untouched is the number of directories of the source no change is in
// (u0 to u9, each with a subdirectory).
const untouched = 10

// incrementalSource makes the source tree in dir (a fuse path).
func incrementalSource(t *testing.T, dir string) {
	var b strings.Builder
	b.WriteString("mkdir src && cd src")
	for i := 0; i < untouched; i++ {
		fmt.Fprintf(&b, " && mkdir -p u%d/s && echo %d > u%d/f && echo %d > u%d/s/g", i, i, i, i, i)
	}
	for i, c := range changes {
		fmt.Fprintf(&b, " && mkdir c%d && %s", i+1, c.setup)
	}
	sh(t, dir, b.String())
}

// rsyncFinds is what rsync -a -H -X -A -n -i --checksum --delete finds
// between fuse paths src and dst ("" when they are the same), but for
// the record of the copied snapshot on the target's root.
func rsyncFinds(t *testing.T, src, dst string) string {
	t.Helper()
	return test.Run(t, "rsync", "-a", "-H", "-X", "-A", "-n", "-i", "--checksum", "--delete", "--filter=-x user.radoscp.synced", src+"/", dst+"/")
}

func incrementalOpts() fscopy.Options {
	o := deleteOpts(fscopy.NoDeleteLimit)
	o.PruneSettle, o.PruneSkew = -1, -1 // the test waits for the rstats itself
	return o
}

// A copy of snapshot s1 with --delete, then one of s2 after every kind
// of change (changes), skips the directories no change is in (u0 to
// u9) by their rctime, lists the rest, and leaves the target equal to
// s2: rsync -a -H -X -A --checksum --delete through ceph-fuse finds
// nothing. s2 has hard links, which rctime cannot follow across
// directories: the copy of s3 (links removed) is a full quick check,
// and says so; the copy of s4 (no links, one change) is pruned again.
func TestIncrementalSnapshotCopy(t *testing.T) {
	fuse := test.FuseMountACL(t)
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		c := mountCopier(t, slow)
		dir := fuse + e.dir
		incrementalSource(t, dir)
		sh(t, dir, "mkdir out")
		copyOf := func(snap string, wantScan string) fscopy.Summary {
			t.Helper()
			src := e.path(".snap", snap, "src") + "/"
			sum, err := c.copier(t, incrementalOpts(), nil).Copy(ctx, src, e.path("out"), true)
			if err != nil || sum.Failed != 0 || sum.Scan != wantScan {
				t.Fatalf("copy of %s: %+v, %v; want scan %q", snap, sum, err, wantScan)
			}
			if out := rsyncFinds(t, dir+"/.snap/"+snap+"/src", dir+"/out"); out != "" {
				t.Fatalf("after the copy of %s, rsync finds:\n%s", snap, out)
			}
			return sum
		}

		e.snapshot(t, "s1")
		if sum := copyOf("s1", fscopy.ScanFull); sum.ScanReason != "the target records no complete copy of a snapshot" {
			t.Fatalf("first copy's reason: %q", sum.ScanReason)
		}

		var script []string
		var touched []string
		for i, c := range changes {
			script = append(script, c.change)
			for _, p := range c.touched {
				touched = append(touched, path.Join(fmt.Sprintf("c%d", i+1), strings.TrimPrefix(p, fmt.Sprintf("c%d/", i+1))))
			}
		}
		sh(t, dir+"/src", strings.Join(script, " && "))
		test.RctimeCaughtUp(t, dir+"/src", touched)
		e.snapshot(t, "s2")
		sum := copyOf("s2", fscopy.ScanRctime)
		if sum.Pruned != untouched+1 { // and c18/a/q
			t.Fatalf("copy of s2 pruned %d directories, want the %d unchanged ones: %+v", sum.Pruned, untouched, sum)
		}
		if sum.Deleted == 0 || sum.Files == 0 {
			t.Fatalf("copy of s2 deleted %d and copied %d files: %+v", sum.Deleted, sum.Files, sum)
		}

		sh(t, dir+"/src", "rm c19/o/g")
		test.RctimeCaughtUp(t, dir+"/src", []string{"c19/o/."})
		e.snapshot(t, "s3")
		if sum := copyOf("s3", fscopy.ScanFull); !strings.Contains(sum.ScanReason, "hard links") || sum.Pruned != 0 {
			t.Fatalf("copy of s3 (after hard links): %+v", sum)
		}

		sh(t, dir+"/src", "echo new > u0/s/g")
		test.RctimeCaughtUp(t, dir+"/src", []string{"u0/s/g"})
		e.snapshot(t, "s4")
		if sum := copyOf("s4", fscopy.ScanRctime); sum.Pruned != untouched-1+len(changes) || sum.Files != 1 { // all but u0 and u0/s
			t.Fatalf("copy of s4: %+v", sum)
		}
	})
}

// An incremental copy lists each directory it walks once on each side:
// its deletion pass takes the walk's listing of the source directory and
// the type check's of the target (keptlistings.go), and each
// subdirectory's rctime is read through the inode its listing holds, not
// by a lookup of its name. Counted at the MDS, around the copy of s2
// into a target holding s1, where one file of the top directory's
// subdirectory c changed and its other subdirectories did not: at most
// two readdirs each for the top directory and c (a listing the client
// has whole in its cache is none), about three getattrs a subdirectory
// (four before), and no lookupsnap per subdirectory; c's unchanged file
// is skipped by its ctime, without the quick check. Then rsync finds the
// target equal to s2, a file the source lost deleted.
func TestIncrementalListsEachDirectoryOnce(t *testing.T) {
	const subdirs = 100
	fuse := test.FuseMount(t)
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		c := mountCopier(t, slow)
		dir := fuse + e.dir
		sh(t, dir, fmt.Sprintf("mkdir -p src/c out && echo a > src/c/f && echo gone > src/c/g && echo k > src/c/k && for i in $(seq %d); do mkdir src/d$i && echo $i > src/d$i/f; done", subdirs-1))
		var reports []fscopy.Report
		var listings uint64
		copyOf := func(snap, wantScan string) (fscopy.Summary, map[string]uint64) {
			t.Helper()
			reports = nil
			before, listed := test.MDSRequests(t), c.fs.Listings()
			sum, err := c.copier(t, incrementalOpts(), &reports).Copy(ctx, e.path(".snap", snap, "src")+"/", e.path("out"), true)
			reqs := test.RequestsSince(before, test.MDSRequests(t))
			listings = c.fs.Listings() - listed
			if err != nil || sum.Failed != 0 || sum.Scan != wantScan {
				t.Fatalf("copy of %s: %+v, %v; want scan %q", snap, sum, err, wantScan)
			}
			if out := rsyncFinds(t, dir+"/.snap/"+snap+"/src", dir+"/out"); out != "" {
				t.Fatalf("after the copy of %s, rsync finds:\n%s", snap, out)
			}
			return sum, reqs
		}
		e.snapshot(t, "s1")
		copyOf("s1", fscopy.ScanFull)

		sh(t, dir+"/src", "echo b >> c/f && rm c/g")
		test.RctimeCaughtUp(t, dir+"/src", []string{"c/f", "c/."})
		e.snapshot(t, "s2")
		sum, reqs := copyOf("s2", fscopy.ScanRctime)
		if sum.Pruned != subdirs-1 || sum.Deleted != 1 {
			t.Fatalf("copy of s2 pruned %d directories and deleted %d entries, want %d and 1: %+v", sum.Pruned, sum.Deleted, subdirs-1, sum)
		}
		// The top directory and c, each listed once in the source and
		// once in the target: so the copy asks its client. The MDS's
		// count is the whole cluster's, and libcephfs answers a listing
		// from its cache when it holds the directory whole (usually 3
		// for the 4) and asks again when what it cached changed while
		// it read it: so it is bounded, well below a listing of each
		// subdirectory.
		if listings != 4 {
			t.Errorf("the incremental copy listed %d directories, want 4 (the top directory and c, once a side)", listings)
		}
		if reqs["readdir"] > 2*listings {
			t.Errorf("the MDS answered %d readdir requests for the copy's %d listings, want at most %d (a listing of each of %d subdirectories would be over %d); all: %v",
				reqs["readdir"], listings, 2*listings, subdirs, subdirs, reqs)
		}
		// A listing asks the MDS for each subdirectory's statistics
		// (libcephfs does) and each rctime is one getattr: three a
		// subdirectory, and about 50 for the rest of the copy (the
		// record, c's files, the settling). Listing again, as before,
		// made it four a subdirectory.
		if max := uint64(3*subdirs + 60); reqs["getattr"] > max {
			t.Errorf("the incremental copy sent %d getattr requests for %d subdirectories, want at most %d; all: %v", reqs["getattr"], subdirs, max, reqs)
		}
		// c/k, unchanged in a directory the copy walks, is skipped by
		// its ctime, as a pruned subtree of one.
		var k *fscopy.Report
		for i := range reports {
			if path.Base(reports[i].Src) == "k" {
				k = &reports[i]
			}
		}
		if k == nil || k.Outcome != fscopy.Unchanged || !strings.Contains(k.Reason, "unchanged since the snapshot the target holds") {
			t.Errorf("c/k, unchanged since s1: %+v; want skipped by its ctime", k)
		}
		if reqs["lookupsnap"] >= subdirs/2 {
			t.Errorf("the incremental copy sent %d lookupsnap requests for %d subdirectories: a lookup of each name?; all: %v", reqs["lookupsnap"], subdirs, reqs)
		}
	})
}
