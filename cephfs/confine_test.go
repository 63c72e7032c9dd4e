package cephfs_test

import (
	"os"
	"sort"
	"strings"
	"syscall"
	"testing"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// Below a confined directory, no write, listing or open follows a
// directory that another client swapped for a symlink out of it: each
// gives ELOOP and the
// directory the symlink points to is left as it was, as another client
// reads it. Without the confinement, the same write lands there (the
// swap took), and inside the confinement writes through real
// directories work. On the fast client and the slow one.
func TestConfinedWritesFollowNoSwappedSymlink(t *testing.T) {
	for _, slow := range []float64{0, 1} {
		t.Run(map[bool]string{false: "fast", true: "slow"}[slow > 0], func(t *testing.T) {
			if slow > 0 {
				t.Setenv(test.EnvConf, test.SlowConf(t, slow))
			}
			_, fs := test.MountFS(t)
			other := test.Mount(t)
			base := "/" + test.UniqueName(t)
			root, outside := base+"/root", base+"/outside"
			for _, d := range []string{base, root, root + "/a", root + "/ok", outside, outside + "/sub"} {
				must(t, other.MakeDir(d, 0o755))
			}
			writeOther(t, other, outside+"/victim", "victim")
			writeOther(t, other, root+"/a/old", "old")

			release, err := fs.Confine(root)
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			// The copy's client has looked at a (cached it), then another
			// client swaps it for a symlink to outside.
			if _, err := fs.Lstat(root + "/a/old"); err != nil {
				t.Fatal(err)
			}
			must(t, other.Rename(root+"/a", root+"/a.moved"))
			must(t, other.Symlink(outside, root+"/a"))
			before := listOther(t, other, outside)

			a := root + "/a"
			ops := map[string]func() error{
				"mkdir":   func() error { return fs.Mkdir(a+"/new", 0o755) },
				"symlink": func() error { return fs.Symlink("x", a+"/link") },
				"mknod":   func() error { return fs.Mknod(a+"/fifo", syscall.S_IFIFO|0o644, 0) },
				"create": func() error {
					f, err := fs.CreateExclusive(a+"/.radoscp.new", 0o644)
					if err == nil {
						f.Close()
					}
					return err
				},
				"open": func() error {
					f, err := fs.OpenWriteNoFollow(a + "/victim")
					if err == nil {
						f.Close()
					}
					return err
				},
				"rename from": func() error { return fs.Rename(a+"/victim", root+"/stolen") },
				"rename onto": func() error { return fs.Rename(root+"/a.moved/old", a+"/victim") },
				"link":        func() error { return fs.Link(a+"/victim", root+"/linked") },
				"unlink":      func() error { return fs.Unlink(a + "/victim") },
				"rmdir":       func() error { return fs.Rmdir(a + "/sub") },
				"setattrs":    func() error { return fs.SetAttrs(a+"/victim", cephfs.Attrs{Mode: 0o777, UID: 4242, GID: 4242}, false) },
				"setxattr":    func() error { return fs.SetXattr(a+"/victim", "user.radoscp", []byte("x")) },
				"removexattr": func() error { return fs.RemoveXattr(a+"/victim", "user.radoscp") },
				// Reads that take data or entries from there.
				"list": func() error { _, err := fs.ReadDir(a + "/sub"); return err },
				"read": func() error {
					f, err := fs.OpenRead(a + "/victim")
					if err == nil {
						f.Close()
					}
					return err
				},
				"ref": func() error {
					r, err := fs.Ref(a + "/victim")
					if err == nil {
						r.Release()
					}
					return err
				},
			}
			for name, op := range ops {
				if err := op(); store.ErrnoOf(err) != syscall.ELOOP {
					t.Errorf("%s through the swapped directory: %v, want ELOOP", name, err)
				}
			}
			if after := listOther(t, other, outside); after != before {
				t.Errorf("outside the confined directory: %s, was %s", after, before)
			}
			if got := readOther(t, outside+"/victim"); got != "victim" {
				t.Errorf("victim reads %q", got)
			}
			var st gocephfs.CephStatx
			if stx, err := other.Statx(outside+"/victim", gocephfs.StatxBasicStats, gocephfs.AtSymlinkNofollow); err != nil {
				t.Fatal(err)
			} else {
				st = *stx
			}
			if st.Uid == 4242 || st.Mode&0o777 == 0o777 {
				t.Errorf("victim's owner or mode changed: uid %d mode %o", st.Uid, st.Mode)
			}

			// Through real directories, the confined writes and reads work.
			ok := root + "/ok"
			f, err := fs.CreateExclusive(ok+"/.radoscp.f", 0o600)
			if err != nil {
				t.Fatal(err)
			}
			must(t, f.WriteAt([]byte("data"), 0))
			must(t, f.Close())
			must(t, fs.Rename(ok+"/.radoscp.f", ok+"/f"))
			must(t, fs.Link(ok+"/f", ok+"/g"))
			must(t, fs.SetAttrs(ok+"/f", cephfs.Attrs{Mode: 0o640}, false))
			must(t, fs.SetXattr(ok+"/f", "user.radoscp", []byte("x")))
			must(t, fs.Mkdir(ok+"/d", 0o755))
			must(t, fs.Symlink("f", ok+"/s"))
			must(t, fs.SetAttrs(ok+"/s", cephfs.Attrs{}, true))
			must(t, fs.Rmdir(ok+"/d"))
			must(t, fs.Unlink(ok+"/g"))
			must(t, fs.SetXattr(root, "user.radoscp", []byte("root")))
			if entries, err := fs.ReadDir(ok); err != nil || len(entries) != 2 {
				t.Errorf("confined listing: %v, %v; want f and s", entries, err)
			}
			if r, err := fs.OpenRead(ok + "/f"); err != nil {
				t.Error(err)
			} else {
				r.Close()
			}
			if got := listOther(t, other, ok); got != "f s" {
				t.Errorf("confined writes left %q, want \"f s\"", got)
			}
			if got := readOther(t, ok+"/f"); got != "data" {
				t.Errorf("confined file reads %q", got)
			}
			if v, err := other.GetXattr(ok+"/f", "user.radoscp"); err != nil || string(v) != "x" {
				t.Errorf("confined xattr %q, %v", v, err)
			}

			// The swap is real: once the confinement is released, a write
			// by path lands outside.
			release()
			must(t, fs.Mkdir(a+"/new", 0o755))
			if got := listOther(t, other, outside); !strings.Contains(got, "new") {
				t.Fatalf("an unconfined mkdir through the symlink did not land outside (%s): the swap did not take", got)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func writeOther(t *testing.T, m *gocephfs.MountInfo, p, data string) {
	t.Helper()
	f, err := m.Open(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	must(t, err)
	_, err = f.Write([]byte(data))
	must(t, err)
	must(t, f.Close())
}

// listOther lists directory p through another client, names sorted.
func listOther(t *testing.T, m *gocephfs.MountInfo, p string) string {
	t.Helper()
	d, err := m.OpenDir(p)
	must(t, err)
	defer d.Close()
	var names []string
	for {
		e, err := d.ReadDir()
		must(t, err)
		if e == nil {
			break
		}
		if n := e.Name(); n != "." && n != ".." {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}
