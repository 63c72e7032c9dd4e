package fscopy

import (
	"path"
	"strings"
)

// splitContents cleans src and reports whether it ended in "/": the
// directory's contents rather than the directory, rsync's convention.
// With it a tree copy's target does not depend on whether DST exists, so
// a rerun (a scheduled job, or a copy that finished run again) continues
// in the same place instead of nesting a second tree in DST/base(SRC).
// The root "/" is its own contents.
func splitContents(src string) (string, bool) {
	return path.Clean(src), src != "/" && strings.HasSuffix(src, "/")
}
