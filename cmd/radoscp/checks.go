package main

import (
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp"
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
	started = true
	cfg, _, err := loader.Load()
	if err != nil {
		return cfg, usageError{err}
	}
	if err := configured(cfg); err != nil {
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

// copyLength is the length req copies from src: --length, or to src's EOF.
// It refuses ranges the engine would refuse, before the destination exists.
func copyLength(src radoscp.Source, req cpRequest) (uint64, error) {
	length := req.length
	if !req.haveLength {
		if req.srcOff > src.Size {
			return 0, usage("--src-offset %d is past the source's EOF %d", req.srcOff, src.Size)
		}
		length = src.Size - req.srcOff
	}
	if req.srcOff > math.MaxUint64-length {
		return 0, usage("--src-offset %d + --length %d overflows", req.srcOff, length)
	}
	if req.dstOff > math.MaxUint64-length {
		return 0, usage("--dst-offset %d + --length %d overflows", req.dstOff, length)
	}
	if req.srcOff+length > src.Size {
		return 0, usage("range [%d, %d) of --src-offset %d --length %d runs past the source's EOF %d",
			req.srcOff, req.srcOff+length, req.srcOff, length, src.Size)
	}
	return length, nil
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
