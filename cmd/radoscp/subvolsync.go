package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/shard"
	"github.com/radoscp/radoscp/subvolume"
	"github.com/radoscp/radoscp/window"
)

// subvolume sync is its own command, not clone --incremental: a clone
// makes a new subvolume and refuses an existing one, a sync updates one
// target again and again and snapshots it after each run.
func newSubvolumeSyncCommand() *cobra.Command {
	var f fsFlags
	var req subvolume.SyncRequest
	var noProgress bool
	var maxDelete int
	var settle, skew time.Duration
	cmd := &cobra.Command{
		Use:   "sync VOL SUBVOL TARGET",
		Short: "Copy SUBVOL's newest snapshot's changes into TARGET, snapshot it",
		Long: `Copy the newest snapshot of subvolume SUBVOL of volume VOL (or
--snapshot NAME; --prefix chooses among names) into subvolume TARGET,
created if absent, as cp -r --delete copies a tree's contents: what
changed is copied server-side, what the snapshot lacks is removed from
TARGET. Then TARGET is snapshotted under the source snapshot's name, so
it keeps one snapshot per run. A TARGET whose last complete run copied
an older snapshot of SUBVOL skips the directories whose rctime shows
nothing changed below them since (the summary says which scan ran and
why); a TARGET with a snapshot of that name already is up to date.
Nothing but this command should write into TARGET.

Exit codes: 0 synced (or up to date), 1 failed, 2 invalid input (nothing
written), 3 interrupted (a rerun continues), 4 --max-delete reached.`,
		Args: exactArgs(3, "VOL SUBVOL TARGET"),
	}
	loader := config.Bind(cmd.Flags())
	cmd.Flags().StringVar(&req.Group, "group", "", "the source subvolume's group (default: none)")
	cmd.Flags().StringVar(&req.TargetGroup, "target-group", "", "TARGET's group (default: none)")
	cmd.Flags().StringVar(&req.Pool, "pool", "", "a new TARGET's data pool (default: SUBVOL's)")
	cmd.Flags().StringVar(&req.Snapshot, "snapshot", "", "the source snapshot to copy (default: the newest whose name starts with --prefix)")
	cmd.Flags().StringVar(&req.Prefix, "prefix", "", "choose the newest snapshot among those whose names start with this (snap_schedule's: scheduled-)")
	cmd.Flags().BoolVar(&noProgress, "no-progress", false, "never show progress (same as --progress off)")
	cmd.Flags().IntVar(&f.files, "files", 4, fmt.Sprintf("files copied at once, 1 to %d (each with --window objects in flight, all of them together at most %d)", maxFiles, window.MaxInFlight))
	cmd.Flags().StringVar(&f.sync, "sync", "fs", "when data is made durable: file (fsync each file), fs (one sync at the end) or off")
	cmd.Flags().IntVar(&maxDelete, "max-delete", fscopy.NoDeleteLimit, "remove at most N entries from TARGET (default: no limit); more to remove ends the run with exit code 4, TARGET not snapshotted")
	cmd.Flags().DurationVar(&settle, "settle", fscopy.DefaultPruneSettle, "a snapshot younger than this is copied with a full quick check (the MDS propagates rctimes within seconds); 0: none")
	cmd.Flags().DurationVar(&skew, "clock-skew", fscopy.DefaultPruneSkew, "how far behind the MDS's clock a writing client's may be; 0: none")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		cfg, err := loadConfig(cmd, loader, noProgress)
		if err != nil {
			return err
		}
		req.Volume, req.Subvolume, req.Target = args[0], args[1], args[2]
		f.recursive, f.del.on, f.del.max = true, true, maxDelete // a sync mirrors (delete.go checks --max-delete)
		o, err := f.options(cmd, cfg)
		if err != nil {
			return err
		}
		if settle < 0 || skew < 0 {
			return usage("--settle %s, --clock-skew %s: expected 0 or more", settle, skew)
		}
		o.PruneSettle, o.PruneSkew = noneIfZero(settle), noneIfZero(skew)
		ctx, stop := interruptContext(cmd)
		defer stop()
		run, prog, c, err := openSubvolumeCopy(cmd, cfg, o, req.Volume, req.Pool)
		if err != nil {
			return err
		}
		defer run.close()
		res, err := subvolume.New(run.runner.conn, run.fs, c).Sync(ctx, req)
		prog.finish()
		if err == nil && o.Sync == fscopy.SyncFS {
			err = run.fs.SyncFS()
		}
		run.runner.session.finish()
		stopped := errors.Is(err, context.Canceled)
		if stopped {
			err = fsInterrupted(res.Summary.Files > 0)
		}
		printSync(cmd.OutOrStdout(), cfg.JSON, req, res, err)
		switch {
		case err == nil:
			return nil
		case stopped:
			return reported(partialError{err})
		case errors.Is(err, fscopy.ErrUsage):
			return reported(usageError{Err: err})
		case errors.Is(err, fscopy.ErrMaxDelete):
			return reported(deleteLimitError{err})
		}
		return reported(err)
	}
	return cmd
}

// openSubvolumeCopy opens the file system of a subvolume command,
// checks its --pool, and makes its copier, which reports each path and
// counts it in the progress display; the caller closes run.
func openSubvolumeCopy(cmd *cobra.Command, cfg config.Config, o fscopy.Options, volume, pool string) (*fsRun, *fileProgress, *fscopy.Copier, error) {
	run, err := openFS(invocationOf(cmd), cfg, volume)
	if err != nil {
		return nil, nil, nil, err
	}
	if pool != "" {
		if err := run.checkDataPool(volume, pool); err != nil {
			run.close()
			return nil, nil, nil, err
		}
	}
	prog := run.runner.session.fileProgress()
	c := fscopy.New(run.runner.engine, run.runner.conn, run.fs, o, func(r fscopy.Report) {
		prog.file(r)
		run.runner.session.verified(r.Verified)
		printReport(cmd.OutOrStdout(), cmd.ErrOrStderr(), cfg.JSON, false, r)
	})
	return run, prog, c, nil
}

// noneIfZero turns a flag's 0 (none) into fscopy's negative none.
func noneIfZero(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// jsonSync is the last line --json prints for subvolume sync.
type jsonSync struct {
	jsonSummary
	Volume       string `json:"volume"`
	Subvolume    string `json:"subvolume"`
	Snapshot     string `json:"snapshot"`
	Target       string `json:"target"`
	SnapshotPath string `json:"snapshot_path"`
	TargetPath   string `json:"target_path"`
	Created      bool   `json:"created"`
	UpToDate     bool   `json:"up_to_date"`
	Snapshotted  bool   `json:"snapshotted"`
}

func printSync(w io.Writer, asJSON bool, req subvolume.SyncRequest, res subvolume.SyncResult, err error) {
	if asJSON {
		j := jsonSync{jsonSummary: newJSONSummary(false, shard.Shard{}, res.Summary, "", res.Elapsed, err),
			Volume: req.Volume, Subvolume: req.Subvolume, Snapshot: res.Snapshot, Target: req.Target,
			SnapshotPath: res.SnapshotPath, TargetPath: res.TargetPath, Created: res.Created, UpToDate: res.UpToDate, Snapshotted: res.Snapshotted}
		b, _ := json.Marshal(j)
		fmt.Fprintln(w, string(b))
		return
	}
	switch {
	case res.UpToDate:
		fmt.Fprintf(w, "subvolume %s has snapshot %s already: up to date, nothing copied\n", req.Target, res.Snapshot)
		return
	case res.TargetPath == "":
		return // refused: main reports the error
	}
	printSummary(w, false, false, shard.Shard{}, res.Summary, "", res.Elapsed, nil)
	if res.Snapshotted {
		fmt.Fprintf(w, "synced snapshot %s of %s into subvolume %s (cephfs:%s) and snapshotted it as %s in %.1fs\n",
			res.Snapshot, req.Subvolume, req.Target, res.TargetPath, res.Snapshot, res.Elapsed.Seconds())
	}
}
