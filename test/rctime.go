package test

import (
	"fmt"
	"path"
	"strings"
	"testing"
	"time"
)

// RctimeCaughtUp waits until the MDS has propagated the changes to the
// touched paths (relative to src, a fuse path) up to src: until every
// directory from each one's parent up has an rctime at least its ctime.
func RctimeCaughtUp(t testing.TB, src string, touched []string) {
	t.Helper()
	for _, p := range touched {
		want := strings.TrimSpace(Run(t, "sh", "-ec", "cd "+src+" && "+"stat -c %.9Z "+p))
		for d := path.Dir(path.Clean(p)); ; d = path.Dir(d) {
			waitUntil(t, fmt.Sprintf("rctime of %s reaches ctime %s of %s", d, want, p), func() bool {
				return !CephTimeBefore(Run(t, "sh", "-ec", "cd "+src+" && "+"getfattr --only-values -n ceph.dir.rctime "+d), want)
			})
			if d == "." {
				break
			}
		}
	}
}

// CephTimeBefore compares two SECONDS.NANOSECONDS times (nine digits).
func CephTimeBefore(a, b string) bool {
	as, an, _ := strings.Cut(strings.TrimSpace(a), ".")
	bs, bn, _ := strings.Cut(strings.TrimSpace(b), ".")
	if len(as) != len(bs) {
		return len(as) < len(bs)
	}
	return as+an < bs+bn
}

// waitUntil polls cond until it holds: the MDS propagates rstats on its
// own schedule (within seconds), which no client call can wait for.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
