package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpWidth is the widest line --help prints: a terminal of 80 columns
// shows every line whole.
const helpWidth = 80

// wrapHelp makes every command's --help break its flags' descriptions
// onto indented lines within helpWidth columns (cobra prints each on one
// line, however long).
func wrapHelp(root *cobra.Command) {
	cobra.AddTemplateFunc("wrappedFlags", func(fs *pflag.FlagSet) string {
		return strings.TrimRight(fs.FlagUsagesWrapped(helpWidth), " \n")
	})
	t := root.UsageTemplate()
	t = strings.ReplaceAll(t, "{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}", "{{wrappedFlags .LocalFlags}}")
	t = strings.ReplaceAll(t, "{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}", "{{wrappedFlags .InheritedFlags}}")
	root.SetUsageTemplate(t)
}

// inapplicable is the annotation listing the shared flags (config.Bind
// adds them all) that do nothing in a command.
const inapplicable = "radoscp-inapplicable-flags"

// hideFlags keeps flags that do nothing in cmd out of its --help, and
// makes loadConfig refuse them on its command line (a config file shared
// with cp may still set them).
func hideFlags(cmd *cobra.Command, names ...string) {
	for _, n := range names {
		if err := cmd.Flags().MarkHidden(n); err != nil {
			panic(err) // a flag name mistyped here
		}
	}
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[inapplicable] = strings.Join(names, " ")
}

// checkInapplicable refuses a flag hideFlags hid from cmd.
func checkInapplicable(cmd *cobra.Command) error {
	for _, n := range strings.Fields(cmd.Annotations[inapplicable]) {
		if cmd.Flags().Changed(n) {
			return usage("--%s does not apply to %s", n, cmd.CommandPath())
		}
	}
	return nil
}
