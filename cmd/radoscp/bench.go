package main

import "github.com/spf13/cobra"

// newBenchCommand is what is left of bench in radoscp: the benchmark
// laboratory (scenarios, reports, plots) is a command of its own,
// radoscp-bench, so that the product carries none of it. Hidden; it only
// says where bench went.
func newBenchCommand() *cobra.Command {
	return &cobra.Command{
		Use:                "bench",
		Short:              "Moved to radoscp-bench",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			start(cmd)
			return usage("bench is a command of its own: radoscp-bench run (the same flags) and radoscp-bench report; make build-bench builds bin/radoscp-bench")
		},
	}
}
