package fscopy

import (
	"testing"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/layout"
)

// A layout read in a directory is remembered for it and for its
// ancestors up to the first with a layout of its own (included), none
// already remembered being replaced; a directory nothing was read in
// takes its nearest remembered ancestor's only through directories with
// no layout of their own, itself included.
func TestLayoutMemoryThroughPlainDirectories(t *testing.T) {
	laid := map[string]bool{"/t/laid": true, "/": true}
	passes := func(d string) bool { return !laid[d] }
	top := cephfs.FileLayout{Layout: layout.Layout{StripeUnit: 1, StripeCount: 1, ObjectSize: 1}, Pool: "p", Namespace: "ns"}
	inner, own := top, top
	inner.Namespace, own.Namespace = "inner", "own"
	remember := func(m *layoutMemory, dir string, fl cephfs.FileLayout) {
		if _, err := m.read(dir, func() (cephfs.FileLayout, error) { return fl, nil }); err != nil {
			t.Fatal(err)
		}
	}
	want := func(what string, got cephfs.FileLayout, ok bool, want *cephfs.FileLayout) {
		t.Helper()
		switch {
		case want == nil && ok:
			t.Errorf("%s = %v; want none", what, got)
		case want != nil && (!ok || got != *want):
			t.Errorf("%s = %v, %t; want %v", what, got, ok, *want)
		}
	}

	m := &layoutMemory{passes: passes}
	remember(m, "/t/laid/in", inner)
	fl, ok := m.inherited("/t/other")
	want("inherited(/t/other), only /t/laid remembered", fl, ok, nil)

	remember(m, "/t/a/b", top)
	remember(m, "/t/a", own) // its own read replaces what /t/a/b's gave it
	for dir, w := range map[string]*cephfs.FileLayout{"/t/a": &own, "/t": &top, "/": &top, "/t/laid": &inner, "/t/laid/in": &inner} {
		fl, ok := m.lookup(dir)
		want("remembered for "+dir, fl, ok, w)
	}
	for dir, w := range map[string]*cephfs.FileLayout{
		"/t/c/d":    &top,   // through /t/c to /t
		"/u":        &top,   // / is remembered
		"/t/laid/x": &inner, // /t/laid has its own, remembered from /t/laid/in
		"/t/laid":   nil,    // a layout of its own: nothing above is its
	} {
		fl, ok := m.inherited(dir)
		want("inherited("+dir+")", fl, ok, w)
	}

	// A read below a remembered directory looks no further up than it.
	looked := map[string]bool{}
	m.passes = func(d string) bool { looked[d] = true; return passes(d) }
	remember(m, "/t/c/d/e", inner)
	for dir, w := range map[string]*cephfs.FileLayout{"/t/c/d": &inner, "/t/c": &inner, "/t": &top} {
		fl, ok := m.lookup(dir)
		want("remembered for "+dir+" after /t/c/d/e's read", fl, ok, w)
	}
	if looked["/t"] || looked["/"] {
		t.Errorf("a read in /t/c/d/e looked at %v: past /t, which was remembered", looked)
	}

	var none layoutMemory // no passes: each directory its own only
	remember(&none, "/t/a/b", top)
	fl, ok = none.lookup("/t/a")
	want("remembered for /t/a without passes", fl, ok, nil)
	fl, ok = none.inherited("/t/a/b/c")
	want("inherited(/t/a/b/c) without passes", fl, ok, nil)
}
