package fscopy_test

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/test"
)

// A tree copy makes FIFOs, sockets and devices (ceph_mknod) with their
// type, device number (a minor over 255 included, which go-ceph's 16-bit
// mknod would cut), mode, owner and times; verify compares them, device
// numbers included; a rerun replaces one whose device number changed.
// Read back through ceph-fuse with stat(1), on a fast and a slow client.
func TestCopySpecialFiles(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		e.mkdirs(t, e.path("src"), e.path("out"))
		dst := e.path("out/src") // cp -r's rule: into the directory out
		// Made through ceph-fuse with mknod(1), as a user's are (Ceph
		// keeps the kernel's form of a device number, which ceph-fuse
		// converts).
		fuse := test.FuseMount(t)
		specials := map[string][]string{
			"fifo": {"-m", "640", "p"},
			"null": {"-m", "666", "c", "1", "3"},
			"disk": {"-m", "660", "b", "259", "70000"},
		}
		for name, args := range specials {
			p := filepath.Join(fuse, e.path("src", name))
			test.Run(t, "mknod", append([]string{p}, args...)...)
			test.Run(t, "chown", "4321:8765", p)
			test.Run(t, "touch", "-h", "-d", "2003-04-05 06:07:08.000009", p)
		}
		// A socket: what a program listening on one leaves behind.
		sock := filepath.Join(fuse, e.path("src", "socket"))
		test.Run(t, "python3", "-c", "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", sock)
		specials["socket"] = nil
		if st, err := e.fs.Lstat(e.path("src/disk")); err != nil || st.Rdev != 259<<20|70000 {
			t.Fatalf("source disk: %+v, %v; want device 259:70000 as Ceph keeps it", st, err)
		}
		c := mountCopier(t, slow)
		var reports []fscopy.Report
		copier := c.copier(t, fscopy.Options{Sync: fscopy.SyncFS}, &reports)
		sum, err := copier.Copy(ctx, e.path("src"), e.path("out"), true)
		if err != nil || sum.Specials != len(specials) || sum.Skipped != 0 || sum.Failed != 0 {
			t.Fatalf("copy: %+v, %v", sum, err)
		}
		statOf := func(p string) string {
			// type, major:minor in hex, mode, owner, mtime in ns
			return test.Run(t, "stat", "-c", "%F %t:%T %a %u:%g %.9Y", filepath.Join(fuse, p))
		}
		for name := range specials {
			a, b := statOf(e.path("src", name)), statOf(path.Join(dst, name))
			if a != b {
				t.Errorf("%s through ceph-fuse: %q, the source %q", name, b, a)
			}
		}
		if got := statOf(path.Join(dst, "disk")); !strings.HasPrefix(got, fmt.Sprintf("block special file %x:%x 660 4321:8765 ", 259, 70000)) {
			t.Errorf("disk through ceph-fuse: %q, want device 259:70000, mode 660, owner 4321:8765", got)
		}
		if v, err := copier.Verify(ctx, e.path("src"), dst, true, func(fscopy.Verification) {}); err != nil || v.Differing != 0 {
			t.Fatalf("verify of the copy: %+v, %v", v, err)
		}

		// Another device number at the destination: verify names it,
		// and a rerun puts the source's back.
		if err := e.fs.Unlink(path.Join(dst, "disk")); err != nil {
			t.Fatal(err)
		}
		test.Run(t, "mknod", "-m", "660", filepath.Join(fuse, dst, "disk"), "b", "259", "70001")
		var diffs []string
		if _, err := copier.Verify(ctx, e.path("src"), dst, true, func(v fscopy.Verification) {
			diffs = append(diffs, v.Differences...)
		}); err == nil || !strings.Contains(strings.Join(diffs, "; "), "device 259:70001, the source's 259:70000") {
			t.Fatalf("verify of a changed device: %v, differences %q", err, diffs)
		}
		if sum, err := copier.Copy(ctx, e.path("src"), e.path("out"), true); err != nil || sum.Failed != 0 || sum.Specials != len(specials) {
			t.Fatalf("rerun: %+v, %v", sum, err)
		}
		if a, b := statOf(e.path("src/disk")), statOf(path.Join(dst, "disk")); a != b {
			t.Errorf("rerun: disk %q, the source %q", b, a)
		}
	})
}
