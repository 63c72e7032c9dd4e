package fscopy

import (
	"testing"
	"time"
)

// A run longer than placedKeep: files put in place before an MDS
// reconnect seen during the run are kept to the end of the run as
// suspects, however old they are by then, and files of a quiet stretch
// are forgotten after placedKeep. A virtual clock and session list stand
// in for time and the client's admin socket.
func TestPlacedLogKeepsFilesAcrossAReconnect(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	sessions := "mds.0 a open"
	c := &Copier{}
	c.placed.sessions = func() (string, error) { return sessions, nil }
	c.placed.clock = func() time.Time { return now }
	c.placed.mds, c.placed.watched = sessions, now

	put := func(name string, after time.Duration) {
		now = now.Add(after)
		c.remember(placed{dst: name, ino: 1})
	}
	names := func(ps []placed) (out []string) {
		for _, p := range ps {
			out = append(out, p.dst)
		}
		return out
	}
	put("old", 0)
	put("quiet", placedKeep+time.Second) // "old" is forgotten: no reconnect while it could be recovered
	if got := names(c.placed.files); len(got) != 1 || got[0] != "quiet" {
		t.Fatalf("after a quiet stretch, remembered %v; want [quiet]", got)
	}
	put("a", time.Second)
	sessions = "mds.0 b open" // a failover
	put("b", mdsWatchEvery)   // seen here: quiet and a become suspects, and b, put in place right after
	if got := names(c.placed.suspects); len(got) != 3 || !c.placed.changed {
		t.Fatalf("after the failover, suspects %v (changed %v); want [quiet a b]", got, c.placed.changed)
	}
	put("b2", suspectAfter-mdsWatchEvery) // still within suspectAfter of the look
	put("c", 3*placedKeep)                // long after: the suspects stay, c is remembered
	if len(c.placed.suspects) != 4 || len(c.placed.files) != 1 {
		t.Fatalf("an hour on, suspects %v, files %v; want 4 suspects and [c]", names(c.placed.suspects), names(c.placed.files))
	}
	// No change within mdsWatchEvery goes unread for long: the next
	// file put in place after it looks again.
	sessions = "mds.0 c open"
	put("d", time.Millisecond)
	if len(c.placed.suspects) != 4 {
		t.Fatalf("sessions read again within %v", mdsWatchEvery)
	}
	put("e", mdsWatchEvery)
	if got := names(c.placed.suspects); len(got) != 7 {
		t.Fatalf("after the second failover, suspects %v; want [quiet a b b2 c d e]", got)
	}
}
