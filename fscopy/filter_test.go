package fscopy

import (
	"strings"
	"testing"
)

func TestFilterRules(t *testing.T) {
	type rule struct {
		include bool
		pattern string
	}
	ex := func(p string) rule { return rule{false, p} }
	in := func(p string) rule { return rule{true, p} }
	for _, c := range []struct {
		rules []rule
		path  string
		dir   bool
		want  bool // excluded
	}{
		{nil, "a", false, false},
		{[]rule{ex("*.tmp")}, "a.tmp", false, true},
		{[]rule{ex("*.tmp")}, "x/y/a.tmp", false, true},    // a last-name pattern matches at any depth
		{[]rule{ex("*.tmp")}, "a.tmp.gz", false, false},    // the whole name must match
		{[]rule{ex("x/*.tmp")}, "x/y/a.tmp", false, false}, // * does not match a "/"
		{[]rule{ex("x/*.tmp")}, "x/a.tmp", false, true},
		{[]rule{ex("/x/*.tmp")}, "x/a.tmp", false, true},       // a leading / changes nothing
		{[]rule{ex("x/*.tmp")}, "z/x/a.tmp", false, false},     // a pattern with a / is anchored at the root
		{[]rule{ex("logs/**/*.gz")}, "logs/a.gz", false, true}, // ** takes no name
		{[]rule{ex("logs/**/*.gz")}, "logs/2024/05/a.gz", false, true},
		{[]rule{ex("logs/**/*.gz")}, "old/logs/a.gz", false, false},
		{[]rule{ex("**/cache")}, "a/b/cache", true, true},
		{[]rule{ex("**/cache")}, "cache", true, true},
		{[]rule{ex("cache/")}, "a/cache", true, true}, // directories only
		{[]rule{ex("cache/")}, "a/cache", false, false},
		{[]rule{in("keep.tmp"), ex("*.tmp")}, "keep.tmp", false, false}, // the first match decides
		{[]rule{ex("*.tmp"), in("keep.tmp")}, "keep.tmp", false, true},
		{[]rule{in("*/"), in("*.txt"), ex("*")}, "a/b", true, false},
		{[]rule{in("*/"), in("*.txt"), ex("*")}, "a/b/c.txt", false, false},
		{[]rule{in("*/"), in("*.txt"), ex("*")}, "a/b/c.bin", false, true},
		{[]rule{ex("[ab]?")}, "b1", false, true},
		{[]rule{ex(`\*`)}, "*", false, true},
		{[]rule{ex(`\*`)}, "x", false, false},
	} {
		var f Filter
		for _, r := range c.rules {
			if err := f.Add(r.include, r.pattern); err != nil {
				t.Fatalf("%v: %v", c.rules, err)
			}
		}
		if got := f.Excluded(c.path, c.dir); got != c.want {
			t.Errorf("rules %v, path %q (dir %v): excluded %v, want %v", c.rules, c.path, c.dir, got, c.want)
		}
	}
}

func TestFilterRefusesBadPatterns(t *testing.T) {
	for _, c := range []struct{ pattern, want string }{
		{"", "expected a pattern"},
		{"/", "expected a pattern"},
		{"a//b", "empty path element"},
		{"a**", "whole path elements"},
		{"[a", "syntax error in pattern"},
	} {
		var f Filter
		err := f.Add(false, c.pattern)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--exclude %q: %v, want an error saying %q", c.pattern, err, c.want)
		}
	}
}
