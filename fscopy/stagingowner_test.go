package fscopy_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
	"github.com/radoscp/radoscp/truncate"
)

// A user who may create files in a shared (sticky) destination directory
// plants a file that looks like an interrupted copy's staging file of g:
// at .radoscp.g, mode 1600, one link, with the source record of the
// unchanged source and an EOF record saying its first half is copied, but
// owned by uid 1000, not the copier's. Forged through ceph-fuse, as that
// user would. Neither a resume nor a plain copy takes it for a staging
// file: it is not continued, removed or renamed, and g is a copy of the
// source, not of its bytes. Checked through ceph-fuse (cmp, stat), on a
// copier client that is fast and one whose OSD replies are slow.
func TestForgedStagingFileIsLeftAlone(t *testing.T) {
	for _, resume := range []bool{true, false} {
		t.Run(fmt.Sprintf("resume=%v", resume), func(t *testing.T) {
			eachClient(t, func(t *testing.T, slow float64) {
				e := newEnv(t)
				fuse := test.FuseMount(t) + e.dir
				e.mkdirs(t, e.path("shared"))
				test.Run(t, "chmod", "1777", fuse+"/shared")
				data := test.RandomData(140, 8<<20)
				e.write(t, e.path("f"), nil, 0o644, map[uint64][]byte{0: data})
				sst, err := e.fs.Lstat(e.path("f"))
				if err != nil {
					t.Fatal(err)
				}

				half := uint64(len(data) / 2)
				forged := append(bytes.Repeat([]byte("EVIL"), int(half/4)), make([]byte, half)...)
				staging := fuse + "/shared/.radoscp.g"
				test.Run(t, "cp", local(t, "forged", forged), staging)
				test.Run(t, "chown", "1000:1000", staging)
				record := fmt.Sprintf("ino=%x size=%d mtime=%d ctime=%d", sst.Ino, sst.Size, sst.Mtime.UnixNano(), sst.Ctime.UnixNano())
				test.Run(t, "setfattr", "-n", "user.radoscp.source", "-v", record, staging)
				test.Run(t, "setfattr", "-n", truncate.XattrEOF, "-v", fmt.Sprint(half), staging)
				test.Run(t, "chmod", "1600", staging)
				stat := func() string {
					return strings.TrimSpace(test.Run(t, "stat", "-c", "%i,%h,%s,%u:%g,%a,%Y", staging))
				}
				before := stat()

				var reports []fscopy.Report
				cp := mountCopier(t, slow)
				copier := cp.copier(t, fscopy.Options{Resume: resume}, &reports)
				if resume {
					if err := copier.CheckResume(e.path("f"), e.path("shared/g")); err != nil {
						t.Logf("CheckResume: %v", err)
					}
				}
				if _, err := copier.Copy(ctx, e.path("f"), e.path("shared/g"), false); err != nil {
					t.Fatal(err)
				}
				test.Run(t, "cmp", fuse+"/f", fuse+"/shared/g")
				if r := reports[0]; r.Resumed || r.Reason != "" {
					t.Fatalf("the copy took the forged .radoscp.g for its own: resumed %v from %d, reason %q", r.Resumed, r.ResumedFrom, r.Reason)
				}
				if after := stat(); after != before {
					t.Fatalf(".radoscp.g (inode,links,size,owner,mode,mtime): %s before the copy, %s after", before, after)
				}
				test.Run(t, "cmp", local(t, "forged", forged), staging)
				holdsOnly(t, fuse+"/shared", ".radoscp.g", "g")
			})
		})
	}
}

// The same user plants a directory that looks like an interrupted tree
// copy's staging tree of t (at .radoscp.t, marked as a copy of the
// source, a file of theirs in it), owned by uid 1000. Neither a resume
// nor a plain copy takes it over: the copy is refused, nothing written,
// the forged tree as it was (find -printf through ceph-fuse), and no t.
// On a copier client that is fast and one whose OSD replies are slow.
func TestForgedStagingTreeIsRefused(t *testing.T) {
	for _, resume := range []bool{true, false} {
		t.Run(fmt.Sprintf("resume=%v", resume), func(t *testing.T) {
			eachClient(t, func(t *testing.T, slow float64) {
				e := newEnv(t)
				fuse := test.FuseMount(t) + e.dir
				e.mkdirs(t, e.path("shared"), e.path("s"))
				test.Run(t, "chmod", "1777", fuse+"/shared")
				e.write(t, e.path("s/f"), nil, 0o644, map[uint64][]byte{0: test.RandomData(141, 5000)})
				staging := fuse + "/shared/.radoscp.t"
				test.Run(t, "mkdir", staging)
				test.Run(t, "cp", local(t, "evil", []byte("EVIL")), staging+"/f")
				test.Run(t, "setfattr", "-n", "user.radoscp.tree", "-v", e.path("s"), staging)
				test.Run(t, "chown", "-R", "1000:1000", staging)
				before := entriesBelow(t, fuse+"/shared")
				_, err := mountCopier(t, slow).copier(t, fscopy.Options{Resume: resume}, nil).Copy(ctx, e.path("s"), e.path("shared/t"), true)
				if !errors.Is(err, fscopy.ErrUsage) || !strings.Contains(err.Error(), "not an interrupted copy of it") {
					t.Fatalf("copy into shared/t beside a forged staging tree: %v; want it refused", err)
				}
				if after := entriesBelow(t, fuse+"/shared"); after != before {
					t.Fatalf("shared (entriesBelow) after the refused copy:\n%s\nwas\n%s", after, before)
				}
				holdsOnly(t, fuse+"/shared", ".radoscp.t")
			})
		})
	}
}
