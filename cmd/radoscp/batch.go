package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp/address"
	"github.com/radoscp/radoscp/config"
)

// runBatch runs the copies listed in f.batch over one connection. Before
// each copy it re-reads the configuration, so an operator can change the
// window of a long job between copies; a copy in progress keeps the window
// it started with. It stops at the first failed copy.
func runBatch(ctx context.Context, cmd *cobra.Command, loader *config.Loader, cfg config.Config, f cpFlags) (err error) {
	done := 0
	defer func() { err = afterCopies(err, done) }()
	var in io.Reader = cmd.InOrStdin()
	if f.batch != "-" {
		file, err := os.Open(f.batch)
		if err != nil {
			return usage("--batch: %v", err)
		}
		defer file.Close()
		in = file
	}
	r, err := newRunner(invocationOf(cmd), cfg)
	if err != nil {
		return err
	}
	defer r.close()
	sc := bufio.NewScanner(in)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) != 2 && len(fields) != 3 {
			return usage("--batch line %d %q: expected SRC DST [LENGTH]", line, sc.Text())
		}
		lf := f
		if len(fields) == 3 {
			lf.length = fields[2]
		}
		req, err := parseCpRequest(fields[:2], lf, len(fields) == 3)
		if err != nil {
			return usage("--batch line %d: %v", line, err)
		}
		if req.src.Scheme == address.CephFS {
			return usage("--batch line %d: cephfs: copies are not batched; give the files or a directory to cp -r", line)
		}
		next, _, err := loader.Load()
		if err != nil {
			return usage("--batch line %d: reloading the configuration: %v", line, err)
		}
		if f.noProgress {
			next.Progress = "off"
		}
		if err := r.copy(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), next, req); err != nil {
			return fmt.Errorf("--batch line %d: %w", line, err)
		}
		done++
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return sc.Err()
}
