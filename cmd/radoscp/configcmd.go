package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp/config"
)

func newConfigCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config [flags]",
		Short: "Print the effective configuration and where each value came from",
		Long: `Precedence, lowest first: defaults, the config file (--config, else
$XDG_CONFIG_HOME/radoscp/config.yaml, else /etc/radoscp/config.yaml),
environment (RADOSCP_WINDOW, ...), flags.`,
		Args: cobra.NoArgs,
	}
	loader := config.Bind(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		start(cmd)
		cfg, _, err := loader.Load()
		if err != nil {
			return usageError{Err: err}
		}
		tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE")
		for _, f := range cfg.Fields() {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Name, f.Value, f.Source)
		}
		return tw.Flush()
	}
	return cmd
}
