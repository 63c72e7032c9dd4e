package main

import (
	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp/fscopy"
)

// filterFlag is --exclude or --include: both append to one filter, so
// the rules keep the order they were given in.
type filterFlag struct {
	filter  *fscopy.Filter
	include bool
	given   []string
}

func (f *filterFlag) Set(pattern string) error {
	if err := f.filter.Add(f.include, pattern); err != nil {
		return err
	}
	f.given = append(f.given, pattern)
	return nil
}

func (f *filterFlag) String() string { return "" }
func (f *filterFlag) Type() string   { return "PATTERN" }

// bindFilter adds --exclude and --include, which fill filter.
func bindFilter(cmd *cobra.Command, filter *fscopy.Filter) {
	cmd.Flags().Var(&filterFlag{filter: filter}, "exclude",
		"cephfs: trees: leave out paths matching PATTERN, relative to the source (repeatable; the first --exclude or --include that matches decides; see the README)")
	cmd.Flags().Var(&filterFlag{filter: filter, include: true}, "include",
		"cephfs: trees: take paths matching PATTERN even if a later --exclude matches them (repeatable)")
}
