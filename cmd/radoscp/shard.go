package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp/shard"
)

// shardFlags are --shard and --shard-by.
type shardFlags struct{ spec, by string }

// bind adds them to a tree command; finish says whether it has a final
// pass.
func (f *shardFlags) bind(cmd *cobra.Command, finish bool) {
	help := "split the tree among N runs: K/N copies only share K (0 <= K < N) of the files, by a hash of their path (see --shard-by); " +
		"auto/N takes K from $JOB_COMPLETION_INDEX or $SLURM_ARRAY_TASK_ID, $VAR/N from $VAR"
	if finish {
		help += "; finish (or finish/N) is the final pass once all N have run: directory metadata, and a report of what no run copied"
	}
	cmd.Flags().StringVar(&f.spec, "shard", "", help)
	cmd.Flags().StringVar(&f.by, "shard-by", "path", "with --shard: path (each file's share by its own path: even shares) or dir (by its directory's path: "+
		"each directory's files are one run's, which creates them with no MDS lookup each; shares as even as the directories' sizes); every run of one copy must give the same")
}

// parse checks the flags; finish says whether the command has a final
// pass.
func (f *shardFlags) parse(finish bool) (shard.Shard, error) {
	if f.spec == "" {
		if f.by != "" && f.by != "path" {
			return shard.None, usage("--shard-by %s applies to a sharded run: give --shard", f.by)
		}
		return shard.None, nil
	}
	s, err := shard.Parse(f.spec, os.Getenv)
	if err != nil {
		return s, usageError{Err: err}
	}
	if s.Finish && !finish {
		return s, usage("--shard %s: this command has no final pass: its N runs together cover every path once", f.spec)
	}
	if s, err = s.ParseBy(f.by); err != nil {
		return s, usageError{Err: err}
	}
	return s, nil
}
