package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp/shard"
)

// bindShard adds --shard to a tree command; finish says whether it has a
// final pass.
func bindShard(cmd *cobra.Command, v *string, finish bool) {
	help := "split the tree among N runs: K/N copies only share K (0 <= K < N) of the files, by a hash of their path; " +
		"auto/N takes K from $JOB_COMPLETION_INDEX or $SLURM_ARRAY_TASK_ID, $VAR/N from $VAR"
	if finish {
		help += "; finish (or finish/N) is the final pass once all N have run: directory metadata, and a report of what no run copied"
	}
	cmd.Flags().StringVar(v, "shard", "", help)
}

// parseShard checks a --shard value; finish says whether the command has
// a final pass.
func parseShard(v string, finish bool) (shard.Shard, error) {
	if v == "" {
		return shard.None, nil
	}
	s, err := shard.Parse(v, os.Getenv)
	if err != nil {
		return s, usageError{Err: err}
	}
	if s.Finish && !finish {
		return s, usage("--shard %s: this command has no final pass: its N runs together cover every path once", v)
	}
	return s, nil
}
