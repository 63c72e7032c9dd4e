package main

import (
	"cmp"
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
	b.WriteString(". " + whenRun(r))
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
	if has("snapshot") {
		rows = append(rows, "from a snapshot of the source (SRC/.snap/S, the nightly clone's case): `radoscp cp -r` with its defaults, the clone anchor 4 files at once (as ceph-mgr clones a subvolume snapshot), and `cp -a` through ceph-fuse")
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

// treeVerdicts states the small-file issue's targets for radoscp cp -r
// into a new target, against the two contenders, cp -a through
// ceph-fuse and the clone anchor one file at a time (as ceph-mgr copies a
// clone): at most 1.5 MDS requests per file and no more MDS CPU per file
// than cp -a; at least 1.5x the faster contender's wall time, or 3x when
// the replies of the MDS and the OSDs were delayed by up to 2 ms or more;
// less client CPU than the clone anchor. It also reports radoscp against
// the clone anchor 4 files at once (a stricter comparison than the
// issue's), and the MDS requests per file of a copy into an existing
// directory.
func treeVerdicts(r benchResult) []string {
	rcp, ok := findFiles(r.Rows, "fscopy", 4)
	if !ok || rcp.Seconds == 0 {
		return nil
	}
	var out []string
	cp, hasCp := findMode(r.Rows, "cp-fuse")
	if rcp.MDSRequestsPerFile > 0 {
		out = append(out, fmt.Sprintf("radoscp cp -r into a new target at most 1.5 MDS requests per file: %.2f, **%s**.",
			rcp.MDSRequestsPerFile, verdict(rcp.MDSRequestsPerFile <= 1.5)))
		if hasCp && cp.MDSCPUMsPerFile > 0 {
			out = append(out, fmt.Sprintf("radoscp cp -r's MDS CPU per file no more than `cp -a`'s: %.2f ms against %.2f ms, **%s**.",
				rcp.MDSCPUMsPerFile, cp.MDSCPUMsPerFile, verdict(rcp.MDSCPUMsPerFile <= cp.MDSCPUMsPerFile)))
		}
	}
	clone, hasClone := findFiles(r.Rows, "clone", 1)
	anchor := clone
	if hasCp && cp.Seconds > 0 && (!hasClone || cp.Seconds < clone.Seconds) {
		anchor = cp
	}
	if anchor.Seconds > 0 {
		goal, delay := 1.5, "no injected delay"
		if r.InjectDelayS > 0 {
			goal, delay = 0, fmt.Sprintf("%s replies delayed up to %g ms", cmp.Or(r.DelayType, "osd"), r.InjectDelayS*1000)
		}
		if r.InjectDelayS >= 0.002 && r.DelayType == "mds osd" {
			goal = 3
		}
		speed := anchor.Seconds / rcp.Seconds
		what, v := "radoscp cp -r against", "reported" // no target at this delay
		if goal > 0 {
			what, v = fmt.Sprintf("radoscp cp -r at least %gx", goal), verdict(speed >= goal)
		}
		out = append(out, fmt.Sprintf("%s the faster of `cp -a` and the clone anchor one file at a time (%s, %.3f s; %s): %.3f s, %.2fx, **%s**.",
			what, anchor.label(), anchor.Seconds, delay, rcp.Seconds, speed, v))
	}
	if hasClone && clone.CPUSeconds > 0 {
		out = append(out, fmt.Sprintf("radoscp cp -r's client CPU below the clone anchor's (one file at a time): %.2f s against %.2f s, **%s**.",
			rcp.CPUSeconds, clone.CPUSeconds, verdict(rcp.CPUSeconds < clone.CPUSeconds)))
	}
	if four, ok := findFiles(r.Rows, "clone", 4); ok && four.Seconds > 0 {
		out = append(out, fmt.Sprintf("Stricter than the issue asks: against the clone anchor 4 files at once (%.3f s), radoscp cp -r is %.2fx.",
			four.Seconds, four.Seconds/rcp.Seconds))
	}
	if ex, ok := findMode(r.Rows, "existing"); ok && ex.MDSRequestsPerFile > 0 {
		out = append(out, fmt.Sprintf("Into an existing directory (reported): %.2f MDS requests per file, %.3f s.", ex.MDSRequestsPerFile, ex.Seconds))
	}
	if s, ok := findMode(r.Rows, "snapshot"); ok && s.MDSRequestsPerFile > 0 {
		line := fmt.Sprintf("From a snapshot (reported): radoscp cp -r %.2f MDS requests per file, %.3f s", s.MDSRequestsPerFile, s.Seconds)
		for _, other := range []struct{ mode, name string }{
			{"snapshot-clone", "the clone anchor 4 files at once"},
			{"snapshot-cp-fuse", "`cp -a`"},
		} {
			if o, ok := findMode(r.Rows, other.mode); ok && o.Seconds > 0 {
				line += fmt.Sprintf("; %s %.2f, %.3f s (radoscp %.2fx as fast)", other.name, o.MDSRequestsPerFile, o.Seconds, o.Seconds/s.Seconds)
			}
		}
		out = append(out, line+".")
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
