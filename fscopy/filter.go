package fscopy

import (
	"fmt"
	"path"
	"strings"

	"github.com/radoscp/radoscp/cephfs"
)

// Filter picks the paths a tree copy or a migrate takes, from --exclude
// and --include rules kept in the order given. Each path below the root
// is matched against the rules in that order, by its path relative to
// the root (for cp -r cephfs:/data ..., cephfs:/data/logs/a.gz is
// "logs/a.gz"): the first rule that matches decides, and a path no rule
// matches is taken. An excluded directory is not descended into, so
// nothing below it is taken, whatever later rules say (rsync's rule: to
// take only *.txt files in every directory, give --include '*/'
// --include '*.txt' --exclude '*').
//
// Patterns are path.Match globs (*, ?, [...], \ to escape; * and ? never
// match a "/"), with three additions:
//   - a pattern without a "/" is matched against the last name of the
//     path, at any depth ("*.tmp" matches "a.tmp" and "x/y/a.tmp");
//   - a pattern with a "/" is matched against the whole relative path,
//     name by name; a leading "/" is allowed and changes nothing; "**" as
//     a whole name matches any number of names, none included
//     ("logs/**/*.gz" matches "logs/a.gz" and "logs/2024/05/a.gz");
//   - a pattern ending in "/" matches directories only ("cache/").
//
// The root itself is always taken. The zero Filter takes everything.
type Filter struct {
	rules []filterRule
}

type filterRule struct {
	include bool
	text    string   // as given, for messages
	names   []string // the pattern's names; one for a last-name pattern
	whole   bool     // matched against the whole relative path
	dirOnly bool
}

// Add appends a rule: an include rule if include, else an exclude rule.
// It refuses a pattern that is empty, does not parse, or uses "**" other
// than as a whole name, saying why (the caller names the pattern).
func (f *Filter) Add(include bool, pattern string) error {
	r := filterRule{include: include, text: pattern}
	p := pattern
	if strings.HasSuffix(p, "/") {
		r.dirOnly, p = true, strings.TrimRight(p, "/")
	}
	if strings.Contains(p, "/") {
		r.whole, p = true, strings.TrimLeft(p, "/")
	}
	if p == "" {
		return fmt.Errorf("expected a pattern naming paths below the source (such as *.tmp, cache/ or logs/**/*.gz)")
	}
	r.names = []string{p}
	if r.whole {
		r.names = strings.Split(p, "/")
	}
	for _, n := range r.names {
		if n == "" {
			return fmt.Errorf("empty path element (two slashes)")
		}
		if n != "**" && strings.Contains(n, "**") {
			return fmt.Errorf("** matches whole path elements only (such as logs/**/*.gz)")
		}
		if _, err := path.Match(n, ""); err != nil {
			return err
		}
	}
	f.rules = append(f.rules, r)
	return nil
}

// Empty reports whether f has no rules (it takes everything).
func (f *Filter) Empty() bool { return f == nil || len(f.rules) == 0 }

// Excluded reports whether the path rel (relative to the root, "/"
// separated, not empty) is left out; dir says whether it is a directory.
func (f *Filter) Excluded(rel string, dir bool) bool {
	if f.Empty() {
		return false
	}
	names := strings.Split(rel, "/")
	for _, r := range f.rules {
		if r.dirOnly && !dir {
			continue
		}
		var ok bool
		if r.whole {
			ok = matchNames(r.names, names)
		} else {
			ok, _ = path.Match(r.names[0], names[len(names)-1])
		}
		if ok {
			return !r.include
		}
	}
	return false
}

// matchNames matches a path's names against a pattern's, "**" taking any
// number of them.
func matchNames(pattern, names []string) bool {
	if len(pattern) == 0 {
		return len(names) == 0
	}
	if pattern[0] == "**" {
		for i := 0; i <= len(names); i++ {
			if matchNames(pattern[1:], names[i:]) {
				return true
			}
		}
		return false
	}
	if len(names) == 0 {
		return false
	}
	ok, _ := path.Match(pattern[0], names[0])
	return ok && matchNames(pattern[1:], names[1:])
}

// relative is p's path below root, for the filter.
func relative(root, p string) string {
	if root == "/" {
		return strings.TrimPrefix(p, "/")
	}
	return strings.TrimPrefix(p, root+"/")
}

// excluded says whether the filter leaves p (an entry found in a walk
// under t.root) out, and counts it in the summary when it does.
func (t *treeCopy) excluded(p string, st cephfs.Stat) bool {
	if !t.c.opts.Filter.Excluded(relative(t.root, p), st.IsDir()) {
		return false
	}
	t.c.repMu.Lock()
	t.sum.Excluded++
	t.c.repMu.Unlock()
	return true
}
