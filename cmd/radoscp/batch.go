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
	"github.com/radoscp/radoscp/objcopy"
)

// runBatch runs the copies listed in f.batch over one connection. Every
// line is read and checked before the first copy runs, so a mistake on
// any line is refused with nothing copied: its syntax (invalid input),
// then what its copy would refuse, read from the cluster (objcopy.Copier.CheckAll,
// which leaves to its copy what an earlier line's copy changes). Before
// each copy it re-reads the configuration, so an operator can change the
// window of a long job between copies; a copy in progress keeps the
// window it started with. It stops at the first failed copy.
func runBatch(ctx context.Context, cmd *cobra.Command, loader *config.Loader, cfg config.Config, f cpFlags) (err error) {
	var in io.Reader = cmd.InOrStdin()
	if f.batch != "-" {
		file, err := os.Open(f.batch)
		if err != nil {
			return usage("--batch: %v", err)
		}
		defer file.Close()
		in = file
	}
	lines, err := readBatch(in, f)
	if err != nil {
		return err
	}
	done := 0
	defer func() { err = afterCopies(err, done) }()
	r, err := newRunner(invocationOf(cmd), cfg)
	if err != nil {
		return err
	}
	defer r.close()
	reqs := make([]objcopy.Request, len(lines))
	for i, l := range lines {
		reqs[i] = objectRequest(cfg, l.req)
	}
	if i, err := r.objects.CheckAll(reqs); err != nil {
		return fmt.Errorf("--batch line %d: %w", lines[i].n, err)
	}
	for _, l := range lines {
		next, _, err := loader.Load()
		if err != nil {
			return usage("--batch line %d: reloading the configuration: %v", l.n, err)
		}
		if f.noProgress {
			next.Progress = "off"
		}
		if err := r.copy(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), next, l.req); err != nil {
			return fmt.Errorf("--batch line %d: %w", l.n, err)
		}
		if !l.req.dryRun {
			done++ // a dry run copies nothing: its failure is no partial run
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// batchLine is one copy of a batch and the line it is on.
type batchLine struct {
	n   int
	req cpRequest
}

// readBatch reads every copy of a batch, each line checked as cp checks
// its arguments; the first bad line is invalid input naming it.
func readBatch(in io.Reader, f cpFlags) ([]batchLine, error) {
	var lines []batchLine
	sc := bufio.NewScanner(in)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) != 2 && len(fields) != 3 {
			return nil, usage("--batch line %d %q: expected SRC DST [LENGTH]", n, sc.Text())
		}
		lf := f
		if len(fields) == 3 {
			lf.length = fields[2]
		}
		req, err := parseCpRequest(fields[:2], lf, len(fields) == 3)
		if err != nil {
			return nil, usage("--batch line %d: %v", n, err)
		}
		if req.src.Scheme == address.CephFS {
			return nil, usage("--batch line %d: %s: cephfs: copies are not batched; give the files or a directory to cp -r", n, req.src)
		}
		lines = append(lines, batchLine{n: n, req: req})
	}
	if err := sc.Err(); err != nil {
		return nil, usage("--batch %s: %v", f.batch, err)
	}
	return lines, nil
}
