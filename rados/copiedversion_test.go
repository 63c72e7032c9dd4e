package rados_test

import (
	"testing"

	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// A copy-from sent with no source version answers with the version it
// copied: the engine's unpinned first copies take their pins from it. An
// object larger than osd_copyfrom_max_chunk (8 MiB) is copied in chunks,
// each asserted to the version the first one read, so it too is one
// version.
func TestCopyFromAnswersTheVersionItCopied(t *testing.T) {
	c := connect(t, rados.ConnConfig{})
	a := openPool(t, c, "radoscp-a", "")
	b := openPool(t, c, "radoscp-b", "")
	name := test.UniqueName(t)
	for _, size := range []int{3, 12 << 20} {
		src := name + ".src"
		for i := 0; i < 3; i++ { // a few writes, so the version is not the pool's first
			if err := a.WriteFull(src, randomBytes(t, size)); err != nil {
				t.Fatal(err)
			}
		}
		st, err := a.Stat(src)
		if err != nil {
			t.Fatal(err)
		}
		cp, err := b.CopyFrom(name+".dst", a, src, store.CopyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := cp.Wait(); err != nil {
			t.Fatal(err)
		}
		if got := cp.CopiedVersion(); got != st.Version {
			t.Errorf("%d bytes: copy-from answered version %d, the source's stat says %d", size, got, st.Version)
		}
		dst, err := b.Stat(name + ".dst")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d bytes: source version %d, copy answered %d, destination's version %d", size, st.Version, cp.CopiedVersion(), dst.Version)
	}
	cp, err := b.CopyFrom(name+".dst2", a, name+".missing", store.CopyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.Wait(); err == nil || cp.CopiedVersion() != 0 {
		t.Errorf("copy of a missing object: err %v, version %d; want ENOENT and 0", err, cp.CopiedVersion())
	}
}
