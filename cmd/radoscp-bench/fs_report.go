package main

import (
	"fmt"
	"slices"
	"strings"
)

// writeFSNotes says, above a cephfs scenario's table, what its rows and
// columns mean where they differ from the object scenarios'.
func writeFSNotes(b *strings.Builder, r benchResult) {
	switch {
	case r.SpeedUpOver == "clone:1":
		fmt.Fprintf(b, "Speed-up is over %s. ", r.Anchor)
	case r.SpeedUpOver != "":
		fmt.Fprintf(b, "The clone anchor one file at a time was not run: speed-up is over the clone anchor at %s files at once. ", strings.TrimPrefix(r.SpeedUpOver, "clone:"))
	default:
		b.WriteString("The clone anchor was not run: no speed-up. ")
	}
	b.WriteString("radoscp rows are `radoscp cp -r` of the same directory (`--files` files at once, each with `--window` copy-froms in flight), ")
	b.WriteString("which checks each file's size, mtime and ctime instead of pinning source object versions, as it always does. ")
	b.WriteString("Wall time and CPU include the final sync of the file system; p50/p99 are per-file copy times; client MiB is what was read and written through the client ")
	b.WriteString("(radoscp copies object 0 of each file, which carries the backtrace, through the client).")
	verified := len(r.Rows) > 0 && !slices.ContainsFunc(r.Rows, func(x benchRow) bool { return !x.Verified })
	if verified {
		b.WriteString(" Every contender's copy was compared with the source, byte for byte, in the first run: identical.")
	} else {
		b.WriteString(" Not every contender's copy was compared with the source.")
	}
	b.WriteString("\n\n")
}

// writeFSSummary states, below the table, the best radoscp row against
// the anchor and against the anchor at the same number of files at once.
func writeFSSummary(b *strings.Builder, r benchResult) {
	rows := r.Rows
	best := bestRow(rows, func(x benchRow) bool { return x.Mode == "fscopy" })
	if best.MiBps == 0 {
		return
	}
	fmt.Fprintf(b, "Fastest radoscp: %s, %.1f MiB/s", best.label(), best.MiBps)
	if r.SpeedUpOver != "" {
		fmt.Fprintf(b, ", %.2fx the clone anchor", best.SpeedUp)
		if r.SpeedUpOver != "clone:1" {
			fmt.Fprintf(b, " at %s files at once", strings.TrimPrefix(r.SpeedUpOver, "clone:"))
		}
	}
	for _, r := range rows {
		if r.Mode == "clone" && r.Files == best.Files && r.Files != 1 && r.MiBps > 0 {
			fmt.Fprintf(b, " and %.2fx libcephfs chunks at %d files at once", best.MiBps/r.MiBps, r.Files)
		}
	}
	anchor, ok := findFiles(rows, "clone", 1)
	if ok && anchor.CPUSeconds > 0 && anchor.ClientBytes > 0 {
		fmt.Fprintf(b, ", with %.0f%% of its client CPU time and %.0f%% of its client bytes",
			100*best.CPUSeconds/anchor.CPUSeconds, 100*float64(best.ClientBytes)/float64(anchor.ClientBytes))
	}
	b.WriteString(".\n\n")
}

func findFiles(rows []benchRow, mode string, files int) (benchRow, bool) {
	for _, r := range rows {
		if r.Mode == mode && r.Files == files {
			return r, true
		}
	}
	return benchRow{}, false
}
