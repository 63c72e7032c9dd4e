package fscopy

// hooks are the points in a copy where a test acts as another client, an
// MDS restart or a crash would. A Copier made by New has none; tests
// install them with a test-only constructor (export_test.go).
type hooks struct {
	// AfterWalkStat runs right after a tree copy's walk has stat'ed a
	// listed regular file (treeCopy.freshStat).
	AfterWalkStat func(src string)
	// AfterList runs right after a tree copy's walk has listed the
	// source directory src, before it copies the entries.
	AfterList func(src string)
	// AfterCopy runs between a file's copy and the check that its source
	// did not change.
	AfterCopy func(src string)
	// AfterRename runs right after a file is renamed into place.
	AfterRename func(dst string)
	// AfterSettle runs once a file put in place is settled and let go.
	AfterSettle func(dst string)
}

func (h *hooks) afterWalkStat(src string) { call(h.AfterWalkStat, src) }
func (h *hooks) afterList(src string)     { call(h.AfterList, src) }
func (h *hooks) afterCopy(src string)     { call(h.AfterCopy, src) }
func (h *hooks) afterRename(dst string)   { call(h.AfterRename, dst) }
func (h *hooks) afterSettle(dst string)   { call(h.AfterSettle, dst) }

func call(f func(string), p string) {
	if f != nil {
		f(p)
	}
}
