// Command radoscp-bench is radoscp's benchmark laboratory, a tool of this
// repository rather than part of the product: run measures radoscp's
// copy-from against the one-at-a-time copy, rados cp, a client-side copy
// and (in CephFS) the subvolume clone anchor, each contender in a child
// process of its own; report turns the results into the README's tables,
// plot and targets. make bench runs both. See README.md, "Benchmarks".
package main

import (
	"os"

	"github.com/spf13/cobra"
)

func main() {
	root := &cobra.Command{
		Use:           "radoscp-bench",
		Short:         "Benchmark radoscp's server-side copy and report the results",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// started is set when a command's own code begins (after cobra's
	// checks of flags and arguments), so errors cobra raises before that
	// are classified as usage errors.
	started := false
	root.PersistentPreRun = func(*cobra.Command, []string) { started = true }
	root.AddCommand(newRunCommand(), newReportCommand(), newIncrementalCommand(), newCeilingCommand())
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{Err: err} })
	err := root.Execute()
	if err != nil && !started {
		err = usageError{Err: err}
	}
	report(os.Stderr, err)
	os.Exit(exitCode(err))
}
