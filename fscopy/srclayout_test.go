package fscopy_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// setDirNamespace gives directory d the pool namespace ns for the files
// created in it from now on (through the other client).
func (e *env) setDirNamespace(t *testing.T, d, ns string) {
	t.Helper()
	if err := e.other.SetXattr(d, "ceph.dir.layout.pool_namespace", []byte(ns), 0); err != nil {
		t.Fatalf("set the pool namespace of %s to %q: %v", d, ns, err)
	}
}

// fileLayout is p's layout as the other client reads it.
func (e *env) fileLayout(t *testing.T, p string) string {
	t.Helper()
	v, err := e.other.GetXattr(p, "ceph.file.layout")
	if err != nil {
		t.Fatal(err)
	}
	return string(v)
}

// The files of one directory, each of one object, in different pool
// namespaces and pools, and a sparse one: each copy has its source's
// data. A file's namespace is taken from the file before it in its
// directory, and used only once its object 0 is found there holding
// data; here that fails for every file but the first of each run of
// equal layouts, among them a file whose object 0 in the namespace taken
// is its backtrace, which the MDS writes in the default namespace and
// which holds no data (the journal is flushed first, so that the MDS has
// written it). Taken without that proof, the copy would have read holes
// and put zeros in place.
func TestSourceNamespacesInOneDirectory(t *testing.T) {
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		src, d := e.path("src"), e.path("src", "d")
		e.mkdirs(t, src, d)
		data := map[string][]byte{}
		write := func(name string, seed uint64) {
			data[name] = test.RandomData(seed, 20000)
			e.write(t, d+"/"+name, nil, 0o644, map[uint64][]byte{0: data[name]})
		}
		write("a", 70) // the default namespace
		e.setDirNamespace(t, d, "radoscpns1")
		write("b", 71) // taken as a's: its object 0 there is its backtrace
		e.setDirNamespace(t, d, "")
		write("c", 72) // taken as b's: no object 0 there
		write("d", 73) // taken as c's, and proven
		e.setDirNamespace(t, d, "radoscpns2")
		write("e", 74)
		if err := e.other.SetXattr(d, "ceph.dir.layout.pool", []byte("cephfs_data2"), 0); err != nil {
			t.Fatal(err)
		}
		write("f", 75) // another pool: its layout is read
		// A sparse file in radoscpns2 of cephfs_data: no object 0.
		if err := e.other.SetXattr(d, "ceph.dir.layout.pool", []byte("cephfs_data"), 0); err != nil {
			t.Fatal(err)
		}
		e.write(t, d+"/g", nil, 0o644, nil)
		if err := e.other.Truncate(d+"/g", 20000); err != nil {
			t.Fatal(err)
		}
		data["g"] = make([]byte, 20000)
		for name, ns := range map[string]string{"a": "", "b": "radoscpns1", "c": "", "e": "radoscpns2"} {
			want := "pool=cephfs_data"
			if ns != "" {
				want += " pool_namespace=" + ns
			}
			if l := e.fileLayout(t, d+"/"+name); !strings.HasSuffix(l, want) {
				t.Fatalf("%s has layout %q, want one ending %q", name, l, want)
			}
		}
		test.Ceph(t, "tell", "mds.0", "flush", "journal")

		c := mountCopier(t, slow).copier(t, fscopy.Options{Copy: copyOpts(4)}, nil)
		if _, err := c.Copy(ctx, src, e.path("dst"), true); err != nil {
			t.Fatal(err)
		}
		for name, want := range data {
			assertEqual(t, name, e.read(t, e.path("dst", "d", name)), want)
		}
	})
}

// A tree of one-object files in one directory, no other client holding
// caps on them, costs the MDS no request per file on the source side
// beyond the listing: their layouts (the pool namespace, which only the
// ceph.file.layout vxattr gives) are not read file by file, a getattr
// each, but taken from the directory's first file and proven at the
// OSDs (sourceLayout).
func TestSourceLayoutNotReadPerFile(t *testing.T) {
	e := newEnv(t)
	src := e.path("src")
	e.mkdirs(t, src)
	const files = 40
	data := map[string][]byte{}
	for i := range files {
		name := fmt.Sprintf("f%02d", i)
		data[name] = test.RandomData(uint64(80+i), 1000+100*i)
		e.write(t, src+"/"+name, nil, 0o644, map[uint64][]byte{0: data[name]})
	}
	c := e.copier(t, fscopy.Options{Copy: copyOpts(4)}, nil)
	// The first copy has the other client give its caps back; the
	// second is the one counted.
	if _, err := c.Copy(ctx, src, e.path("dst1"), true); err != nil {
		t.Fatal(err)
	}
	fscopy.WaitSettled(c)
	before := test.MDSRequests(t)
	if _, err := c.Copy(ctx, src, e.path("dst2"), true); err != nil {
		t.Fatal(err)
	}
	got := test.RequestsSince(before, test.MDSRequests(t))
	t.Logf("MDS requests for a tree of %d one-object files: %v", files, got)
	if got["getattr"] >= files/2 || got["lookup"] >= files/2 {
		t.Errorf("%d getattr and %d lookup requests for %d files: the source side still asks the MDS about each file", got["getattr"], got["lookup"], files)
	}
	for name, want := range data {
		assertEqual(t, name, e.read(t, e.path("dst2", name)), want)
	}
}

// sourceReads counts the stats and reads of the objects named in oids.
type sourceReads struct {
	oids map[string]bool

	mu           sync.Mutex
	stats, reads int
}

func (s *sourceReads) wrap(o store.Objects) store.Objects { return &countedReads{Objects: o, s: s} }

type countedReads struct {
	store.Objects
	s *sourceReads
}

func (c *countedReads) Stat(oid string) (store.ObjectStat, error) {
	if c.s.oids[oid] {
		c.s.mu.Lock()
		c.s.stats++
		c.s.mu.Unlock()
	}
	return c.Objects.Stat(oid)
}

func (c *countedReads) Read(oid string, buf []byte, off uint64) (int, error) {
	if c.s.oids[oid] {
		c.s.mu.Lock()
		c.s.reads++
		c.s.mu.Unlock()
	}
	return c.Objects.Read(oid, buf, off)
}

// A tree of one-object files in one directory, copied many at once: each
// file's object is read once and never stat'ed. The read that proves a
// file's pool namespace (sourceLayout) is the copy's own read, not a
// round trip to the OSDs before it. Read back through ceph-fuse.
func TestSourceProofIsTheCopysRead(t *testing.T) {
	fuse := test.FuseMount(t)
	eachClient(t, func(t *testing.T, slow float64) {
		e := newEnv(t)
		src := e.path("src")
		e.mkdirs(t, src)
		const files = 24
		counted := &sourceReads{oids: map[string]bool{}}
		for i := range files {
			p := fmt.Sprintf("%s/f%02d", src, i)
			e.write(t, p, nil, 0o644, map[uint64][]byte{0: test.RandomData(uint64(300+i), 1000+700*i)})
			st, err := e.fs.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			counted.oids[fmt.Sprintf("%x.00000000", st.Ino)] = true
		}
		c := mountCopier(t, slow).copier(t, fscopy.Options{Copy: copyOpts(4), WrapObjects: counted.wrap}, nil)
		if _, err := c.Copy(ctx, src, e.path("dst"), true); err != nil {
			t.Fatal(err)
		}
		test.Run(t, "diff", "-r", fuse+src, fuse+e.path("dst"))
		if counted.stats != 0 || counted.reads != files {
			t.Fatalf("%d files of one object: %d stats and %d reads of their objects, want none and one each", files, counted.stats, counted.reads)
		}
	})
}
