package fscopy

import (
	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/verify"
)

// Outcome is what happened to one path.
type Outcome string

const (
	Copied    Outcome = "copied"    // a file, complete and in place
	Linked    Outcome = "symlink"   // a symlink, re-created
	Special   Outcome = "special"   // a FIFO, socket or device, made
	HardLink  Outcome = "hardlink"  // a hard link to a file copied earlier in the tree
	Dir       Outcome = "dir"       // a directory, made (or already there)
	Skipped   Outcome = "skipped"   // not copied, and why is in Reason
	Failed    Outcome = "failed"    // an error; Err says which
	Unchanged Outcome = "unchanged" // migrate: already in the pool
	Deleted   Outcome = "deleted"   // --delete: removed from the target, not in the source
	// Interrupted is a file the copy's context stopped while it was
	// copied (an interrupt): what it copied is kept for Resume.
	Interrupted Outcome = "interrupted"
)

// Report is the outcome for one source path.
type Report struct {
	Src, Dst string
	Outcome  Outcome
	Reason   string // for Skipped and notes (a leftover staging file removed)
	// Result is the engine's, for files.
	Result radoscp.Result
	// ResumedFrom is the offset a resumed copy continued from.
	ResumedFrom uint64
	Resumed     bool
	// Verified is what verifying the copy found, when it was verified.
	Verified *verify.Result
	// Size is a regular file's size in the source, whatever its
	// outcome: what a progress display counts as done for it.
	Size uint64
	// Symlink marks a symlink's report, which a display counting files
	// leaves out.
	Symlink bool
	// DryRun marks what a dry run says the copy would do: nothing was
	// written for it.
	DryRun bool
	// Finding is what the final pass of a sharded copy found (shard.go).
	Finding Finding
	// InTarget marks a report of the --delete pass about the target's
	// entry Dst: a display names Dst, since Src, where its source is or
	// would be, may not exist.
	InTarget bool
	Err      error
}

// Summary counts a tree's outcomes.
type Summary struct {
	// Target is the top destination a copy wrote (or, in a dry run,
	// would write): DST, or DST/base(SRC) by cp's rule.
	Target                                                       string
	Files, Symlinks, HardLinks, Dirs, Skipped, Failed, Unchanged int
	// Specials counts the FIFOs, sockets and devices made.
	Specials int
	// Excluded counts the paths the filter left out (a directory
	// counts once, without what is below it).
	Excluded int
	Bytes    uint64
	// Seen counts the regular files and symlinks a sharded worker's walk
	// met, its share or not: workers whose counts differ walked
	// different trees (the source changed between their walks).
	Seen int
	// Missed, Changed and Extra count the final pass's findings.
	Missed, Changed, Extra int
	// TimesReset counts the files whose times an MDS recovery moved after
	// they were put in place, during an MDS restart or failover, and
	// that were set again (see reconnect.go).
	TimesReset int
	// Interrupted counts the files an interrupt stopped mid-copy.
	Interrupted int
	// PeakInFlight is the most copy-froms the engine had in flight at
	// once (radoscp.Engine.PeakInFlight): over all files, at most
	// window.MaxInFlight.
	PeakInFlight int
	// Deleted counts the target's entries --delete removed (in a dry
	// run, would remove); DeletesLeft those MaxDelete kept it from
	// removing (delete.go).
	Deleted, DeletesLeft int
	// Scan is how a tree copy found what to copy: ScanFull or ScanRctime;
	// ScanReason why not ScanRctime; Pruned counts the source directories
	// skipped unchanged (prune.go).
	Scan, ScanReason string
	Pruned           int
}

func (s *Summary) add(r Report) {
	switch r.Finding {
	case Missed:
		s.Missed++
	case Changed:
		s.Changed++
	case Extra:
		s.Extra++
	}
	switch r.Outcome {
	case Copied:
		s.Files++
		s.Bytes += r.Result.Bytes
	case Linked:
		s.Symlinks++
	case Special:
		s.Specials++
	case HardLink:
		s.HardLinks++
	case Dir:
		s.Dirs++
	case Skipped:
		s.Skipped++
	case Failed:
		s.Failed++
	case Unchanged:
		s.Unchanged++
	case Interrupted:
		s.Interrupted++
	case Deleted:
		s.Deleted++
	}
}
