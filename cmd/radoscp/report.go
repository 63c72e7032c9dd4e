package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp/shard"
)

func newReportCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "report [--json] FILE...",
		Short: "Merge the --json outputs of a sharded copy's workers and last pass",
		Long: `Read the --json lines of the runs of one sharded cp -r, migrate or verify
(--shard K/N, and the final pass --shard finish), one FILE per run ("-" for
stdin), and print files, bytes and failures per shard and in all. It finds
a shard missing or given twice, a run that ended without its summary
(killed), runs of different N, a path put in place by two workers, and
workers that walked different trees (the source changed between their
walks), and the final pass's findings. It keeps one entry per path copied.

Exit codes: 0 every shard complete and nothing found, 1 a shard failed, is
missing or given twice, a run did not end, a path was copied twice or the
final pass found something, 2 a FILE that cannot be read or is not the
--json output of a sharded run.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usage("report takes the --json output FILEs of a sharded run's workers")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the merged report as one JSON object")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		start(cmd)
		var runs []shardRun
		for _, name := range args {
			r, err := readShardRun(cmd.InOrStdin(), name)
			if err != nil {
				return usageError{Err: err}
			}
			runs = append(runs, r)
		}
		rep := mergeRuns(runs)
		if asJSON {
			b, _ := json.Marshal(rep)
			fmt.Fprintln(cmd.OutOrStdout(), string(b))
		} else {
			rep.print(cmd.OutOrStdout())
		}
		if len(rep.Problems) > 0 {
			return reported(fmt.Errorf("%s: %s", plural(len(rep.Problems), "problem", "problems"), rep.Problems[0]))
		}
		return nil
	}
	return cmd
}

// shardRun is what one run's --json output says.
type shardRun struct {
	file  string
	shard shard.Shard
	// summary is the last line; nil if the run printed none (killed).
	summary *runSummary
	// placed are the destinations the run put in place.
	placed []string
}

// runSummary holds the summary fields of cp -r and migrate (files,
// bytes, ...) and of verify (paths, differing).
type runSummary struct {
	Shard     string  `json:"shard"`
	Files     int     `json:"files"`
	Symlinks  int     `json:"symlinks"`
	HardLinks int     `json:"hard_links"`
	Bytes     uint64  `json:"bytes"`
	Failed    int     `json:"failed"`
	Skipped   int     `json:"skipped"`
	Unchanged int     `json:"unchanged"`
	Seen      *int    `json:"seen"`
	Missed    int     `json:"missed"`
	Changed   int     `json:"changed"`
	Extra     int     `json:"extra"`
	Paths     int     `json:"paths"`
	Differing int     `json:"differing"`
	Error     *string `json:"error"`
}

// readShardRun reads one run's --json lines from file name.
func readShardRun(stdin io.Reader, name string) (shardRun, error) {
	run := shardRun{file: name}
	in := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return run, err
		}
		defer f.Close()
		in = f
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var l struct {
			SchemaVersion int     `json:"schema_version"`
			Summary       bool    `json:"summary"`
			Dst           string  `json:"dst"`
			Outcome       string  `json:"outcome"`
			Finding       *string `json:"finding"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			return run, fmt.Errorf("%s:%d is not a --json line of radoscp: %v", name, n, err)
		}
		if l.SchemaVersion != jsonSchemaVersion {
			return run, fmt.Errorf("%s:%d has schema_version %d; this radoscp reads %d", name, n, l.SchemaVersion, jsonSchemaVersion)
		}
		if run.summary != nil {
			return run, fmt.Errorf("%s:%d follows the summary line: one FILE per run", name, n)
		}
		if l.Summary {
			var s runSummary
			_ = json.Unmarshal([]byte(line), &s)
			if s.Shard == "" {
				return run, fmt.Errorf("%s:%d is the summary of a run without --shard", name, n)
			}
			sh, err := shard.Parse(s.Shard, func(string) string { return "" })
			if err != nil {
				return run, fmt.Errorf("%s:%d: %w", name, n, err)
			}
			run.summary, run.shard = &s, sh
			continue
		}
		switch l.Outcome {
		case "copied", "symlink", "hardlink":
			if l.Finding == nil {
				run.placed = append(run.placed, l.Dst)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return run, fmt.Errorf("read %s: %w", name, err)
	}
	return run, nil
}

// shardReport is the merged report (--json prints it as it is).
type shardReport struct {
	SchemaVersion int         `json:"schema_version"`
	N             int         `json:"n"`
	Shards        []shardLine `json:"shards"`
	Total         shardTotals `json:"total"`
	Final         *shardLine  `json:"final"`
	// Problems make the report fail; Warnings do not.
	Problems []string `json:"problems"`
	Warnings []string `json:"warnings"`
	OK       bool     `json:"ok"`
}

// shardLine is one run: its shard, its file and its summary.
type shardLine struct {
	Shard string `json:"shard"`
	File  string `json:"file"`
	runSummary
}

type shardTotals struct {
	Files     int    `json:"files"`
	Symlinks  int    `json:"symlinks"`
	HardLinks int    `json:"hard_links"`
	Bytes     uint64 `json:"bytes"`
	Failed    int    `json:"failed"`
	Paths     int    `json:"paths"`
	Differing int    `json:"differing"`
}

// mergeRuns checks the runs against each other and sums them.
func mergeRuns(runs []shardRun) shardReport {
	rep := shardReport{SchemaVersion: jsonSchemaVersion, Problems: []string{}, Warnings: []string{}, Shards: []shardLine{}}
	problem := func(format string, args ...any) { rep.Problems = append(rep.Problems, fmt.Sprintf(format, args...)) }
	files := map[int][]string{}
	placed := map[string]string{} // destination -> the run that put it in place
	seen := map[int][]string{}
	for _, r := range runs {
		s := r.summary
		if s == nil {
			problem("%s ended without its summary line: the run did not end (killed?); run its worker again and give the new output instead", r.file)
			continue
		}
		line := shardLine{Shard: r.shard.String(), File: r.file, runSummary: *s}
		if r.shard.N > 0 {
			if rep.N == 0 {
				rep.N = r.shard.N
			} else if r.shard.N != rep.N {
				problem("%s is shard %s, but other runs are of %d shards", r.file, r.shard, rep.N)
			}
		}
		if r.shard.Finish {
			if rep.Final != nil {
				problem("the final pass is given twice: %s and %s", rep.Final.File, r.file)
			}
			rep.Final = &line
			if s.Failed > 0 || s.Error != nil {
				problem("the final pass (%s) failed: %s", r.file, errorOf(s))
			}
			continue
		}
		files[r.shard.K] = append(files[r.shard.K], r.file)
		rep.Shards = append(rep.Shards, line)
		rep.Total.Files += s.Files
		rep.Total.Symlinks += s.Symlinks
		rep.Total.HardLinks += s.HardLinks
		rep.Total.Bytes += s.Bytes
		rep.Total.Failed += s.Failed
		rep.Total.Paths += s.Paths
		rep.Total.Differing += s.Differing
		if s.Failed > 0 || s.Differing > 0 || s.Error != nil {
			problem("shard %s (%s) failed: %s", r.shard, r.file, errorOf(s))
		}
		if s.Seen != nil {
			seen[*s.Seen] = append(seen[*s.Seen], r.shard.String())
		}
		for _, dst := range r.placed {
			if other, ok := placed[dst]; ok && other != r.file {
				problem("cephfs:%s was put in place by two workers: %s and %s", dst, other, r.file)
			}
			placed[dst] = r.file
		}
	}
	for k := 0; k < rep.N; k++ {
		switch fs := files[k]; {
		case len(fs) == 0:
			problem("shard %d/%d is missing", k, rep.N)
		case len(fs) > 1:
			problem("shard %d/%d is given %d times: %s", k, rep.N, len(fs), strings.Join(fs, ", "))
		}
	}
	if len(seen) > 1 {
		var counts []string
		for n, who := range seen {
			counts = append(counts, fmt.Sprintf("%d (%s)", n, strings.Join(who, ", ")))
		}
		slices.Sort(counts)
		rep.Warnings = append(rep.Warnings, "the workers walked different trees, the source changed between their walks: files and symlinks seen "+
			strings.Join(counts, ", ")+"; the final pass finds what that left out")
	}
	if f := rep.Final; f != nil && f.Missed+f.Changed+f.Extra > 0 {
		problem("the final pass (%s) found %d missed, %d changed, %d extra paths", f.File, f.Missed, f.Changed, f.Extra)
	}
	if rep.Final == nil && len(rep.Shards) > 0 && rep.Shards[0].Paths == 0 {
		rep.Warnings = append(rep.Warnings, "no final pass given: directory metadata, and anything no worker copied, are its to do")
	}
	slices.SortFunc(rep.Shards, func(a, b shardLine) int { return strings.Compare(a.Shard, b.Shard) })
	rep.OK = len(rep.Problems) == 0
	return rep
}

func errorOf(s *runSummary) string {
	if s.Error != nil {
		return *s.Error
	}
	return fmt.Sprintf("%d failed, %d differing", s.Failed, s.Differing)
}

func (rep shardReport) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "SHARD\tFILES\tSYMLINKS\tBYTES\tFAILED\tSEEN\t\tFILE")
	row := func(l shardLine) {
		seen := "-"
		if l.Seen != nil {
			seen = fmt.Sprint(*l.Seen)
		}
		files, failed := l.Files, l.Failed
		if l.Paths > 0 {
			files, failed = l.Paths, l.Failed+l.Differing
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t\t%s\n", l.Shard, files, l.Symlinks, l.Bytes, failed, seen, l.File)
	}
	for _, l := range rep.Shards {
		row(l)
	}
	t := rep.Total
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\t\t\t\n", t.Files+t.Paths, t.Symlinks, t.Bytes, t.Failed+t.Differing)
	tw.Flush()
	if f := rep.Final; f != nil {
		fmt.Fprintf(w, "final pass (%s, %s): %d unchanged, %d copied, %d failed; found %d missed, %d changed, %d extra\n",
			f.Shard, f.File, f.Unchanged, f.Files+f.Symlinks, f.Failed, f.Missed, f.Changed, f.Extra)
	}
	for _, p := range rep.Warnings {
		fmt.Fprintln(w, "warning:", p)
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(w, "problem:", p)
	}
	if rep.OK {
		fmt.Fprintf(w, "ok: %s complete\n", plural(len(rep.Shards), "shard", "shards"))
	}
}
