package main

import (
	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/window"
)

// smallPerFile is how many small files (1 MiB or less, one object each)
// take one of --files' places (fscopy).
const smallPerFile = 8

// boundInFlight keeps a tree copy's copy-froms in flight within
// window.MaxInFlight (see there: more can stop an OSD for every client).
// --files N copies N files at once with a window each, or 8N small files
// of one copy-from each. A fixed window whose product is over the bound is
// refused; an automatic one is capped at the files' share unless
// --max-window gives one, which is held to the same bound.
func boundInFlight(o *radoscp.Options, files int) error {
	per := max(o.Window, 1)
	what := "--window"
	if o.Auto {
		if o.MaxWindow == 0 {
			o.MaxWindow = max(window.MaxInFlight/files, 1)
			per = o.MaxWindow
		} else {
			per, what = o.MaxWindow, "--max-window"
		}
	}
	if n := files * max(per, smallPerFile); n > window.MaxInFlight {
		return usage("--files %d with %s %d: up to %d copy-froms in flight (%d files with %d each, or %d small files of one), expected at most %d: "+
			"an OSD admits %d client operations at once by default (osd_client_message_cap), and more copy-froms than half of that can stop it for every client (docs/reference.md, --window)",
			files, what, per, n, files, per, files*smallPerFile, window.MaxInFlight, 2*window.MaxInFlight)
	}
	return nil
}
