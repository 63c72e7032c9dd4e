package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp/address"
	"github.com/radoscp/radoscp/config"
)

// Checks of a command line that need more than one flag, or the source's
// size, made before anything is written: a destination is created when it
// is opened, so whatever the engine would refuse later is refused here.

// exactArgs is a command's Args check: exactly n arguments, which the
// message names ("verify takes SRC and DST").
func exactArgs(n int, takes string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usage("%s takes %s, got %s", cmd.CommandPath()[len(cmd.Root().Name())+1:], takes, plural(len(args), "argument", "arguments"))
		}
		return nil
	}
}

// loadConfig starts every command that copies or compares: it loads the
// configuration (a bad value is invalid input), checks up front what would
// otherwise fail only at the end (the metrics textfile's directory) and
// the progress flags, and applies --no-progress.
func loadConfig(cmd *cobra.Command, loader *config.Loader, noProgress bool) (config.Config, error) {
	start(cmd)
	if err := checkInapplicable(cmd); err != nil {
		return config.Config{}, err
	}
	cfg, _, err := loader.Load()
	if err != nil {
		return cfg, usageError{Err: err}
	}
	if err := invocationOf(cmd).configured(cfg); err != nil {
		return cfg, err
	}
	if err := checkProgressFlags(cmd, cfg, noProgress); err != nil {
		return cfg, err
	}
	if noProgress {
		cfg.Progress = "off"
	}
	return cfg, nil
}

// checkProgressFlags refuses --no-progress with --progress on: one says
// never, the other always.
func checkProgressFlags(cmd *cobra.Command, cfg config.Config, noProgress bool) error {
	if noProgress && cmd.Flags().Changed("progress") && cfg.Progress == "on" {
		return usage("--no-progress and --progress on contradict each other; give one")
	}
	return nil
}

// checkResume refuses --resume into a rados: destination: a raw object set
// records no EOF, so there is nothing to resume from (give --dst-size,
// --src-offset and --dst-offset for the rest instead).
func checkResume(req cpRequest) error {
	if req.resume && req.dst.Scheme == address.Rados {
		return fmt.Errorf("--resume needs a destination that records its EOF (striper: or cephfs:); %s is a raw object set: copy the rest with --src-offset, --dst-offset and --dst-size", req.dst)
	}
	return nil
}
