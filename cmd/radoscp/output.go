package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/names"
	"github.com/radoscp/radoscp/shard"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/verify"
)

// jsonResult is the one line --json prints.
type jsonResult struct {
	SchemaVersion int `json:"schema_version"`
	// Src and Dst are the copy's addresses (empty on the line of a
	// failure before any copy).
	Src string `json:"src,omitempty"`
	Dst string `json:"dst,omitempty"`
	// SrcB64 and DstB64 are the names' bytes, when they are not UTF-8
	// (names.Lossless).
	SrcB64         string         `json:"src_b64,omitempty"`
	DstB64         string         `json:"dst_b64,omitempty"`
	Bytes          uint64         `json:"bytes"`
	PublishedEOF   uint64         `json:"published_eof"`
	Objects        uint64         `json:"objects"`
	Window         int            `json:"window"`
	AutoWindow     bool           `json:"auto_window"`
	Serial         bool           `json:"serial"`
	Fallback       bool           `json:"fallback"`
	CutBack        bool           `json:"cut_back"`
	Generation     jsonGeneration `json:"generation"`
	ElapsedSeconds float64        `json:"elapsed_seconds"`
	Error          *string        `json:"error"`
	Errno          int            `json:"errno"`
	Verify         *jsonVerify    `json:"verify,omitempty"`
	// DryRun marks a --dry-run's line: the fields say what the copy
	// would do (bytes, objects, the EOF it would publish) and
	// DryRunAction what it would do to the destination.
	DryRun       bool   `json:"dry_run,omitempty"`
	DryRunAction string `json:"dry_run_action,omitempty"`
	// ExitCode is set on the line of a failure found before any copy
	// began, the only line such a run prints.
	ExitCode *int `json:"exit_code,omitempty"`
}

// jsonVerify is what --verify found.
type jsonVerify struct {
	Same        bool     `json:"same"`
	Objects     uint64   `json:"objects"`
	Bytes       uint64   `json:"bytes"`
	ClientBytes uint64   `json:"client_bytes"`
	Differences []string `json:"differences"`
}

func toJSONVerify(v *verify.Result) *jsonVerify {
	if v == nil {
		return nil
	}
	j := &jsonVerify{Same: v.Same(), Objects: v.Objects, Bytes: v.Bytes, ClientBytes: v.ClientBytes, Differences: []string{}}
	for _, d := range v.Differences {
		j.Differences = append(j.Differences, d.String())
	}
	return j
}

// setNames puts req's addresses in the line, losslessly.
func (j *jsonResult) setNames(req cpRequest) {
	j.Src, j.Dst = req.src.String(), req.dst.String()
	j.SrcB64, j.DstB64 = names.Lossless(j.Src), names.Lossless(j.Dst)
}

// cephfsName is a CephFS path of the default file system for a line of
// text.
func cephfsName(p string) string { return names.Quote("cephfs:" + p) }

// printResultVerified is printResult with what --verify found.
func printResultVerified(w io.Writer, asJSON bool, req cpRequest, res radoscp.Result, v *verify.Result, err error) {
	if asJSON {
		j := toJSON(res, err)
		j.setNames(req)
		j.Verify = toJSONVerify(v)
		if j.Verify != nil && err != nil {
			j.Verify.Same = false // not compared, or compared and different
		}
		b, _ := json.Marshal(j)
		fmt.Fprintln(w, string(b))
		return
	}
	printResult(w, false, res, err)
	if v != nil && v.Same() {
		fmt.Fprintf(w, "verified: %s, %d bytes equal to the source; %d bytes through the client\n",
			plural(int(v.Objects), "object", "objects"), v.Bytes, v.ClientBytes)
	}
}

type jsonGeneration struct {
	Seq  uint32 `json:"seq"`
	Size uint64 `json:"size"`
}

func toJSON(res radoscp.Result, err error) jsonResult {
	out := jsonResult{
		SchemaVersion: jsonSchemaVersion,
		Bytes:         res.Bytes, PublishedEOF: res.PublishedEOF, Objects: res.Objects,
		Window: res.Window, AutoWindow: res.Auto, Serial: res.Serial, Fallback: res.Fallback, CutBack: res.CutBack,
		Generation:     jsonGeneration{Seq: res.Generation.Seq, Size: res.Generation.Size},
		ElapsedSeconds: res.Elapsed.Seconds(),
	}
	if err != nil {
		msg := plainWords(flagWords(err))
		out.Error = &msg
		out.Errno = int(store.ErrnoOf(err))
	}
	return out
}

func printResult(w io.Writer, asJSON bool, res radoscp.Result, err error) {
	if asJSON {
		b, _ := json.Marshal(toJSON(res, err))
		fmt.Fprintln(w, string(b))
		return
	}
	rate := 0.0
	if s := res.Elapsed.Seconds(); s > 0 {
		rate = float64(res.Bytes) / s / (1 << 20)
	}
	fmt.Fprintf(w, "copied %d bytes (%s by copy-from) in %.3fs, %.1f MiB/s; window %d%s%s%s; published EOF %d\n",
		res.Bytes, plural(int(res.Objects), "object", "objects"), res.Elapsed.Seconds(), rate, res.Window, flag(res.Auto, " (auto, widest reached)"),
		flag(res.Serial, ", serial (into existing data)"), flag(res.Fallback, ", some data through the client"),
		res.PublishedEOF)
	if res.CutBack {
		fmt.Fprintln(w, "objects written past the published EOF were cut back")
	}
}

func flag(on bool, s string) string {
	if on {
		return s
	}
	return ""
}

// jsonFile is the line --json prints for each path of a CephFS copy: the
// copy's fields for files, plus what happened to the path.
type jsonFile struct {
	SchemaVersion int     `json:"schema_version"`
	Src           string  `json:"src"`
	Dst           string  `json:"dst"`
	SrcB64        string  `json:"src_b64,omitempty"`
	DstB64        string  `json:"dst_b64,omitempty"`
	Outcome       string  `json:"outcome"`
	Reason        string  `json:"reason,omitempty"`
	Finding       string  `json:"finding,omitempty"`
	DryRun        bool    `json:"dry_run,omitempty"`
	Resumed       bool    `json:"resumed"`
	ResumedFrom   uint64  `json:"resumed_from"`
	Error         *string `json:"error"`
	Errno         int     `json:"errno"`
	*jsonResult   `json:"result,omitempty"`
}

// printReport prints one path's outcome: a JSON line, or a line for each
// file that was not simply copied (failures and skips on stderr). With
// single, the copy is of one file, whose failure main reports.
func printReport(out, errw io.Writer, asJSON, single bool, r fscopy.Report) {
	if asJSON {
		j := jsonFile{SchemaVersion: jsonSchemaVersion, Src: r.Src, Dst: r.Dst, SrcB64: names.Lossless(r.Src), DstB64: names.Lossless(r.Dst),
			Outcome: string(r.Outcome), Reason: libraryTerms.Replace(r.Reason),
			Finding: string(r.Finding), Resumed: r.Resumed, ResumedFrom: r.ResumedFrom, DryRun: r.DryRun}
		if r.Err != nil {
			msg := r.Err.Error()
			if r.Outcome == fscopy.Interrupted {
				msg = plainWords(msg)
			}
			j.Error, j.Errno = &msg, int(store.ErrnoOf(r.Err))
		}
		if r.Outcome == fscopy.Copied || r.Outcome == fscopy.Failed || r.Outcome == fscopy.Interrupted {
			res := toJSON(r.Result, nil)
			res.Verify = toJSONVerify(r.Verified)
			j.jsonResult = &res
		}
		b, _ := json.Marshal(j)
		fmt.Fprintln(out, string(b))
		return
	}
	if r.DryRun && r.Err == nil {
		printDryRun(out, r)
		return
	}
	switch {
	case r.Err != nil && single:
	case r.Outcome == fscopy.Interrupted:
		fmt.Fprintf(errw, "radoscp: interrupted %s after %s of %s\n", names.Quote(r.Src), size(r.Result.Bytes), size(r.Size))
	case r.Err != nil:
		fmt.Fprintf(errw, "radoscp: %s: %s\n", reportName(r), names.Escape(r.Err.Error()))
	case r.Finding != "":
		fmt.Fprintf(errw, "radoscp: %s %s: %s\n", r.Finding, names.Quote(r.Src), names.Escape(libraryTerms.Replace(r.Reason)))
	case r.Outcome == fscopy.Deleted:
		fmt.Fprintf(errw, "radoscp: deleted %s (not in the source)\n", cephfsName(r.Dst))
	case r.Outcome == fscopy.Unchanged:
		// Counted in the summary: a rerun would print a line per file
		// it had nothing to do for.
	case r.Outcome == fscopy.Skipped:
		fmt.Fprintf(errw, "radoscp: skipped %s: %s\n", reportName(r), names.Escape(libraryTerms.Replace(r.Reason)))
	case r.Reason != "" && r.Outcome != fscopy.HardLink: // a hard link's reason names its file
		fmt.Fprintf(errw, "radoscp: %s: %s\n", names.Quote(r.Src), names.Escape(libraryTerms.Replace(r.Reason)))
	}
	if r.Resumed {
		fmt.Fprintf(errw, "radoscp: %s: resumed from byte %d\n", names.Quote(r.Src), r.ResumedFrom)
	}
}

// reportName is the path a line of r names: the target's entry for the
// --delete pass (its source may not exist), else the source.
func reportName(r fscopy.Report) string {
	if r.InTarget {
		return cephfsName(r.Dst)
	}
	return names.Quote(r.Src)
}

// jsonSummary is the last line --json prints for a CephFS copy.
type jsonSummary struct {
	SchemaVersion int  `json:"schema_version"`
	Summary       bool `json:"summary"`
	// Into is the top destination a CephFS copy wrote (cephfs:PATH).
	Into      string `json:"into,omitempty"`
	Files     int    `json:"files"`
	Symlinks  int    `json:"symlinks"`
	HardLinks int    `json:"hard_links"`
	Specials  int    `json:"special_files"`
	Dirs      int    `json:"dirs"`
	Skipped   int    `json:"skipped"`
	Unchanged int    `json:"unchanged"`
	Failed    int    `json:"failed"`
	// Interrupted counts the files an interrupt stopped mid-copy.
	Interrupted int    `json:"interrupted"`
	Excluded    int    `json:"excluded"`
	DryRun      bool   `json:"dry_run,omitempty"`
	Bytes       uint64 `json:"bytes"`
	// ElapsedSeconds is the wall time of the walk and its copies.
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	// Shard is the run's --shard (K/N, finish, finish/N); Seen, for a
	// worker, the files and symlinks its walk met; Missed, Changed and
	// Extra the final pass's findings (fscopy.Finding).
	Shard   string `json:"shard,omitempty"`
	Seen    *int   `json:"seen,omitempty"`
	Missed  int    `json:"missed"`
	Changed int    `json:"changed"`
	Extra   int    `json:"extra"`
	// TimesReset counts the files whose times were set again after an
	// MDS restart or failover moved them (fscopy.Summary.TimesReset).
	TimesReset int `json:"times_reset"`
	// PeakInFlight is the most copy-froms in flight at once over the
	// run's files (fscopy.Summary.PeakInFlight).
	PeakInFlight int `json:"peak_in_flight"`
	// Deleted and DeletesLeft: what --delete removed (in a dry run,
	// would remove) and what --max-delete left (fscopy.Summary).
	Deleted     int `json:"deleted"`
	DeletesLeft int `json:"deletes_left"`
	// Scan is how a tree copy found what to copy ("full" or "rctime"),
	// ScanReason why not by rctime, Pruned the source directories
	// skipped unchanged (fscopy.Summary).
	Scan       string  `json:"scan,omitempty"`
	ScanReason string  `json:"scan_reason,omitempty"`
	Pruned     int     `json:"pruned"`
	Error      *string `json:"error"`
	Errno      int     `json:"errno"`
	ExitCode   *int    `json:"exit_code,omitempty"` // as in jsonResult
}

// newJSONSummary is the --json summary of a CephFS copy or migrate.
func newJSONSummary(dryRun bool, sh shard.Shard, s fscopy.Summary, into string, elapsed time.Duration, err error) jsonSummary {
	j := jsonSummary{SchemaVersion: jsonSchemaVersion, Summary: true, Into: into, Files: s.Files, Symlinks: s.Symlinks, HardLinks: s.HardLinks, Specials: s.Specials, Dirs: s.Dirs, Skipped: s.Skipped,
		Unchanged: s.Unchanged, Failed: s.Failed, Interrupted: s.Interrupted, Excluded: s.Excluded, Bytes: s.Bytes, ElapsedSeconds: elapsed.Seconds(), DryRun: dryRun,
		Shard: sh.String(), Missed: s.Missed, Changed: s.Changed, Extra: s.Extra, TimesReset: s.TimesReset, PeakInFlight: s.PeakInFlight,
		Deleted: s.Deleted, DeletesLeft: s.DeletesLeft, Scan: s.Scan, ScanReason: s.ScanReason, Pruned: s.Pruned}
	if sh.Worker() {
		j.Seen = &s.Seen
	}
	if err != nil {
		msg := plainWords(err.Error())
		j.Error, j.Errno = &msg, int(store.ErrnoOf(err))
	}
	return j
}

// printSummary prints a CephFS copy's or migrate's counts; elapsed is
// the time since its walk began, sh the run's --shard.
func printSummary(w io.Writer, asJSON, dryRun bool, sh shard.Shard, s fscopy.Summary, into string, elapsed time.Duration, err error) {
	if asJSON {
		b, _ := json.Marshal(newJSONSummary(dryRun, sh, s, into, elapsed, err))
		fmt.Fprintln(w, string(b))
		return
	}
	// Built whole, then broken between its parts to the terminal's width
	// (termwrap.go), not mid-word by the terminal.
	var b strings.Builder
	defer func() { io.WriteString(w, wrapForTerminal(w, b.String())) }()
	links := ""
	if s.HardLinks > 0 {
		links = ", " + plural(s.HardLinks, "hard link", "hard links")
	}
	if s.Specials > 0 {
		links += ", " + plural(s.Specials, "special file", "special files")
	}
	if sh.On() {
		fmt.Fprintf(&b, "shard %s: ", sh)
	}
	if dryRun {
		fmt.Fprintf(&b, "dry run: would copy %s (%s), %s%s, %s; %d skipped, %d unchanged, %d failed%s%s; nothing was written\n",
			plural(s.Files, "file", "files"), plural(int(s.Bytes), "byte", "bytes"), plural(s.Symlinks, "symlink", "symlinks"),
			links, plural(s.Dirs, "directory", "directories"), s.Skipped, s.Unchanged, s.Failed,
			flag(s.Excluded > 0, fmt.Sprintf(", %d excluded", s.Excluded)), flag(into != "", "; into "+names.Quote(into)))
		printDeletions(&b, s, "would delete")
		return
	}
	rate := 0.0
	if sec := elapsed.Seconds(); sec > 0 {
		rate = float64(s.Bytes) / sec / (1 << 20)
	}
	fmt.Fprintf(&b, "%s (%s), %s%s, %s; %d skipped, %d unchanged, %d failed%s%s; in %.3fs, %.1f MiB/s",
		plural(s.Files, "file", "files"), plural(int(s.Bytes), "byte", "bytes"), plural(s.Symlinks, "symlink", "symlinks"),
		links, plural(s.Dirs, "directory", "directories"), s.Skipped, s.Unchanged, s.Failed,
		flag(s.Interrupted > 0, fmt.Sprintf(", %d interrupted", s.Interrupted)),
		flag(s.Excluded > 0, fmt.Sprintf(", %d excluded", s.Excluded)), elapsed.Seconds(), rate)
	switch {
	case sh.Worker():
		fmt.Fprintf(&b, "; %d files and symlinks walked in all", s.Seen)
	case sh.Finish:
		fmt.Fprintf(&b, "; found %d missed, %d changed, %d extra", s.Missed, s.Changed, s.Extra)
	}
	if s.TimesReset > 0 {
		fmt.Fprintf(&b, "; times set again on %s after an MDS restart moved them", plural(s.TimesReset, "file", "files"))
	}
	if into != "" {
		fmt.Fprintf(&b, "; into %s", names.Quote(into))
	}
	b.WriteString("\n")
	printDeletions(&b, s, "deleted")
	printScan(&b, s)
}

// printDeletions prints what --delete did (did says how), if anything.
func printDeletions(w io.Writer, s fscopy.Summary, did string) {
	if s.Deleted+s.DeletesLeft == 0 {
		return
	}
	fmt.Fprintf(w, "%s %s not in the source", did, plural(s.Deleted, "entry", "entries"))
	if s.DeletesLeft > 0 {
		fmt.Fprintf(w, "; %d more left by --max-delete", s.DeletesLeft)
	}
	fmt.Fprintln(w)
}

// printScan says how an incremental copy (one with --delete, or one that
// skipped subtrees) found what to copy: by the rctimes since the
// snapshot the target last copied, or by a full quick check, and why.
func printScan(w io.Writer, s fscopy.Summary) {
	switch {
	case s.Scan == fscopy.ScanRctime:
		fmt.Fprintf(w, "incremental: %s unchanged since the target's last snapshot skipped (rctime)\n",
			plural(s.Pruned, "directory", "directories"))
	case s.Scan == fscopy.ScanFull && s.ScanReason != "no --delete":
		fmt.Fprintf(w, "full quick check: %s\n", s.ScanReason)
	}
}
