package cephfs_test

import (
	"io"
	"os"
	"testing"
	"time"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

func mount(t *testing.T) *cephfs.FS {
	t.Helper()
	_, fs := test.MountFS(t)
	return fs
}

// The generation read from the admin socket follows the MDS: (0, 0) for a
// new file, a bump and the new size for each shrink, nothing for a grow.
func TestGeneration(t *testing.T) {
	fs := mount(t)
	p := "/" + test.UniqueName(t)
	f, err := fs.CreateExclusive(p, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Unlink(p)
	defer f.Close()
	if _, err := fs.CreateExclusive(p, 0o600); err == nil {
		t.Fatal("created an existing file exclusively")
	}
	if err := f.WriteAt(make([]byte, 9<<20), 0); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		size uint64
		want store.Generation
	}{
		{0, store.Generation{}}, // no truncate: as written
		{5 << 20, store.Generation{Seq: 2, Size: 5 << 20}},
		{7 << 20, store.Generation{Seq: 2, Size: 5 << 20}},
		{1 << 20, store.Generation{Seq: 3, Size: 1 << 20}},
	}
	for _, s := range steps {
		if s.size > 0 {
			if err := f.Truncate(s.size); err != nil {
				t.Fatal(err)
			}
		}
		got, err := f.Generation()
		if err != nil || got != s.want {
			t.Fatalf("after truncate to %d: generation %+v, %v; want %+v", s.size, got, err, s.want)
		}
	}
}

// SetAttrs sets what cp -a keeps, on files and (without mode) symlinks.
func TestSetAttrs(t *testing.T) {
	fs := mount(t)
	p := "/" + test.UniqueName(t)
	f, err := fs.CreateExclusive(p, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	defer fs.Unlink(p)
	when := time.Date(2003, 4, 5, 6, 7, 8, 9000, time.UTC)
	a := cephfs.Attrs{Mode: 0o4751, UID: 1234, GID: 5678, Atime: when, Mtime: when.Add(time.Minute)}
	if err := fs.SetAttrs(p, a, false); err != nil {
		t.Fatal(err)
	}
	st, err := fs.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Perm() != a.Mode || st.UID != a.UID || st.GID != a.GID || !st.Atime.Equal(a.Atime) || !st.Mtime.Equal(a.Mtime) {
		t.Fatalf("attributes %+v, want %+v", st, a)
	}
	link := p + ".link"
	if err := fs.Symlink("nowhere", link); err != nil {
		t.Fatal(err)
	}
	defer fs.Unlink(link)
	if err := fs.SetAttrs(link, a, true); err != nil {
		t.Fatal(err)
	}
	if st, err := fs.Lstat(link); err != nil || !st.IsSymlink() || !st.Mtime.Equal(a.Mtime) || st.UID != a.UID {
		t.Fatalf("symlink: %+v, %v", st, err)
	}
}

// A Session's mount gives a closed file's write caps back with no release
// delay (about 1 s after the close, which the test logs; 2 s with a delay
// of 1), and keeps the shared caps its stats are answered from, so a
// copy's later stats of the file stay in the client. Also with OSD
// replies delayed by up to a second, so the write itself is slow; another
// client (libcephfs directly) then reads what was written.
func TestClosedFileGivesWriteCapsBack(t *testing.T) {
	for _, slow := range []float64{0, 1} {
		t.Run(map[bool]string{false: "fast", true: "slow"}[slow > 0], func(t *testing.T) {
			if slow > 0 {
				t.Setenv(test.EnvConf, test.SlowConf(t, slow))
			}
			conn, fs := test.MountFS(t)
			if got, err := conn.Raw().GetConfigOption("client_caps_release_delay"); err != nil || got != "0" {
				t.Fatalf("client_caps_release_delay %q (%v), want 0", got, err)
			}
			if got, err := conn.Raw().GetConfigOption("ms_inject_delay_type"); err != nil || (got == "osd") != (slow > 0) {
				t.Fatalf("ms_inject_delay_type %q (%v) on a client with OSD replies delayed by up to %v s", got, err, slow)
			}
			p := "/" + test.UniqueName(t)
			f, err := fs.CreateExclusive(p, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			defer fs.Unlink(p)
			if err := f.WriteAt([]byte("data"), 0); err != nil {
				t.Fatal(err)
			}
			if held, err := fs.HoldsWriteCaps(p); err != nil || !held {
				t.Fatalf("write caps held while open: %v, %v", held, err)
			}
			f.Close()
			for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
				held, err := fs.HoldsWriteCaps(p)
				if err != nil {
					t.Fatal(err)
				}
				if !held {
					t.Logf("write caps given back %v after the close", time.Since(start).Round(time.Millisecond))
					break
				}
				if time.Since(start) > time.Minute {
					t.Fatal("write caps still held a minute after the close")
				}
			}
			if shared, err := fs.HoldsReadCaps(p); err != nil || !shared {
				t.Fatalf("shared caps given back with the write caps: %v, %v", shared, err)
			}
			if got := readOther(t, p); got != "data" {
				t.Fatalf("another client reads %q, want %q", got, "data")
			}
		})
	}
}

// readOther reads the whole of p through another client.
func readOther(t *testing.T, p string) string {
	t.Helper()
	other := test.Mount(t)
	f, err := other.Open(p, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
