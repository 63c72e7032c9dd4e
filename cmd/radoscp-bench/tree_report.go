package main

import (
	"fmt"
	"slices"
	"strings"
)

// writeTreeNotes says, above a tree scenario's table, what was copied and
// what the rows are.
func writeTreeNotes(b *strings.Builder, r benchResult) {
	t := r.Tree
	fmt.Fprintf(b, "The source: %d regular files (%.1f MiB), %d symlinks, %d directories", t.Files, float64(t.Bytes)/(1<<20), t.Symlinks, t.Dirs)
	if t.Source != "" {
		fmt.Fprintf(b, ", staged from the local %s by the scenario", t.Source)
	}
	fmt.Fprintf(b, ". Measured %s, %d CPUs; medians of %d runs", r.Machine.Date, r.Machine.CPUs, r.Repeat)
	rows := []string{
		"`radoscp cp -r` with its defaults (`--files 4`, so up to 32 files of 1 MiB or less at once; `--window 16`)",
		"the clone anchor (libcephfs reads and writes in 8 MiB chunks, mode, owner and times kept, as ceph-mgr's subvolume clones copy) one file at a time and 4 at once (ceph-mgr runs 4 clones at once by default)",
		"`cp -a` through a ceph-fuse mount of the same file system, mounted for the run",
	}
	// Rows added since a result was recorded are described only where
	// the result has them.
	has := func(mode string) bool {
		return slices.ContainsFunc(r.Rows, func(x benchRow) bool { return x.Mode == mode })
	}
	if has("sharded") || has("sharded-dir") {
		rows = append(rows, "radoscp's sharded copy (3 workers at once, each a client of its own, then the final pass, timed together), with shares by path (the default) and by directory (`--shard-by dir`)")
	}
	if has("existing") {
		rows = append(rows, "`radoscp cp -r SRC/ DIR` into an existing, empty DIR (every file through its own staging file, as into any existing tree)")
	}
	fmt.Fprintf(b, ". Rows: %s. ", strings.Join(rows, "; "))
	b.WriteString("radoscp and the clone anchor both run with Ceph's in-memory client log off (`debug_client` 0/0, what radoscp sets when the conf leaves Ceph's default 0/5: it is a third of a small-file copy's client CPU); ceph-mgr's own clones, and ceph-fuse here, keep 0/5. ")
	if r.SpeedUpOver != "" {
		fmt.Fprintf(b, "Speed-up is over the %s row. ", contenderLabel(r.Rows, r.SpeedUpOver))
	}
	b.WriteString("Wall time and CPU include the final sync of the file system (for cp -a, the unmount, which returns once ceph-fuse has flushed); ")
	b.WriteString("cp -a's CPU is cp's and the ceph-fuse daemon's (the client there); p50/p99 are per-file copy times (none for cp -a).")
	if len(r.Rows) > 0 && !slices.ContainsFunc(r.Rows, func(x benchRow) bool { return !x.Verified }) {
		b.WriteString(" Every contender's first copy was compared with the source (type, mode, owner, size, mtime, contents, symlink targets): identical.")
	} else {
		b.WriteString(" Not every contender's copy was compared with the source.")
	}
	b.WriteString("\n\n")
}

// contenderLabel is the label of the row that over (contender.String) names.
func contenderLabel(rows []benchRow, over string) string {
	for _, r := range rows {
		if (contender{Mode: r.Mode, Window: r.Window, Files: r.Files}).String() == over {
			return r.label()
		}
	}
	return over
}

// treeVerdicts compares radoscp's row with cp -a and the faster clone
// anchor row: speed and client CPU, against the small-file goal (3x cp -a,
// 1.5x the clone anchor, less CPU than either).
func treeVerdicts(r benchResult) []string {
	rcp, ok := findFiles(r.Rows, "fscopy", 4)
	if !ok || rcp.Seconds == 0 {
		return nil
	}
	var out []string
	if cp, ok := findMode(r.Rows, "cp-fuse"); ok && cp.Seconds > 0 {
		out = append(out, fmt.Sprintf("radoscp at least 3x `cp -a` through ceph-fuse: %.2fx (%.0f against %.0f files/s), **%s**; CPU %.2f s against %.2f s, **%s**.",
			cp.Seconds/rcp.Seconds, rcp.FilesPerS, cp.FilesPerS, verdict(cp.Seconds >= 3*rcp.Seconds),
			rcp.CPUSeconds, cp.CPUSeconds, verdict(rcp.CPUSeconds < cp.CPUSeconds)))
	}
	clone := bestRow(r.Rows, func(x benchRow) bool { return x.Mode == "clone" })
	if clone.Seconds > 0 {
		out = append(out, fmt.Sprintf("radoscp at least 1.5x the clone anchor (its faster row, %s): %.2fx, **%s**; CPU %.2f s against %.2f s, **%s**.",
			clone.label(), clone.Seconds/rcp.Seconds, verdict(clone.Seconds >= 1.5*rcp.Seconds),
			rcp.CPUSeconds, clone.CPUSeconds, verdict(rcp.CPUSeconds < clone.CPUSeconds)))
	}
	return out
}

// writeTreeSummary states the verdicts below a tree scenario's table.
func writeTreeSummary(b *strings.Builder, r benchResult) {
	for _, v := range treeVerdicts(r) {
		fmt.Fprintf(b, "- %s\n", v)
	}
	b.WriteString("\n")
}

func findMode(rows []benchRow, mode string) (benchRow, bool) {
	for _, r := range rows {
		if r.Mode == mode {
			return r, true
		}
	}
	return benchRow{}, false
}
