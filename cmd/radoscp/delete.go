package main

import (
	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp/fscopy"
)

// deleteFlags are cp's --delete and --max-delete (fscopy's delete.go).
type deleteFlags struct {
	on  bool
	max int
}

func (f *deleteFlags) bind(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.on, "delete", false, "cephfs, with -r: after a copy with no failure, remove what the target holds and the source does not (excluded paths and radoscp's staging files are kept; never outside the target)")
	cmd.Flags().IntVar(&f.max, "max-delete", 0, "cephfs, with --delete: remove at most N entries (0: none, only count them); more to remove ends the run with exit code 4")
}

// options checks the flags: --delete mirrors a tree (-r), --max-delete
// bounds it.
func (f *deleteFlags) options(cmd *cobra.Command, recursive bool) (bool, int, error) {
	limited := cmd.Flags().Changed("max-delete")
	switch {
	case !f.on && limited:
		return false, 0, usage("--max-delete %d bounds the deletions of --delete: give --delete too", f.max)
	case !f.on:
		return false, 0, nil
	case !recursive:
		return false, 0, usage("--delete mirrors a directory tree: give -r")
	case limited && f.max < 0:
		return false, 0, usage("--max-delete %d: expected 0 or more", f.max)
	case limited:
		return true, f.max, nil
	}
	return true, fscopy.NoDeleteLimit, nil
}

// deleteLimitError is a tree copy complete but for the deletions
// --max-delete stopped: exit code 4.
type deleteLimitError struct{ err error }

func (e deleteLimitError) Error() string { return e.err.Error() }
func (e deleteLimitError) Unwrap() error { return e.err }
