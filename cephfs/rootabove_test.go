package cephfs

import "testing"

// A path's confined directory is the deepest one strictly above it, by
// whole names: /a/bc is not below /a/b, and a confined directory itself
// is below its parent's confinement, not its own. A path through a
// snapshot directory below it is not confined.
func TestRootAbove(t *testing.T) {
	c := &confinement{roots: map[string]*confinedRoot{}, snapdir: ".snap"}
	for _, d := range []string{"/", "/a", "/a/b"} {
		c.roots[d] = &confinedRoot{ref: &InodeRef{path: d}}
	}
	for _, tc := range []struct{ path, root, rel string }{
		{"/a/b/c", "/a/b", "c"},
		{"/a/b/c/d", "/a/b", "c/d"},
		{"/a/bc", "/a", "bc"},
		{"/a/b", "/a", "b"},
		{"/a", "/", "a"},
		{"/x/y", "/", "x/y"},
		{"/", "", ""},
		{"/a/.snap/s1/f", "", ""},
		{"/a/b/.snap", "", ""},
		{"/a/b/c/.snapx/f", "/a/b", "c/.snapx/f"},
	} {
		r, rel := c.rootAbove(tc.path)
		got := ""
		if r != nil {
			got = r.ref.path
		}
		if got != tc.root || rel != tc.rel {
			t.Errorf("rootAbove(%s) = %q, %q; want %q, %q", tc.path, got, rel, tc.root, tc.rel)
		}
	}
	delete(c.roots, "/")
	if r, _ := c.rootAbove("/x/y"); r != nil {
		t.Errorf("/x/y is below %s; want no confined directory", r.ref.path)
	}
}
