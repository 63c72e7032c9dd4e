// Command radoscp copies data inside a Ceph cluster with server-side
// COPY_FROM2, many objects at once. See README.md.
package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	root := &cobra.Command{
		Use:           "radoscp",
		Short:         "Copy Ceph data server-side with parallel RADOS copy-from",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	inv := newInvocation()
	root.SetErr(inv.stderr)
	root.Version = versionString()
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(newCpCommand(), newMigrateCommand(), newVerifyCommand(), newBenchCommand(), newConfigCommand(),
		newSubvolumeCommand(), newReportCommand())
	root.AddCommand(newManCommand(root))
	wrapHelp(root)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{Err: flagError(c, err)} })
	err := root.ExecuteContext(withInvocation(context.Background(), inv))
	if err != nil && !inv.started {
		// Cobra failed before any command ran: unknown command,
		// wrong arguments, bad flags.
		err = usageError{Err: cobraWords(err)}
	}
	printFailureJSON(os.Stdout, os.Args[1:], inv.json, err)
	report(inv.stderr, err)
	inv.job.finish(inv.stderr, exitCode(err))
	os.Exit(exitCode(err))
}
