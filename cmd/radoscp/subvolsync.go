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
	var noProgress, dryRun bool
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

An existing TARGET is synced only when it is recognisably SUBVOL's
mirror: a sync created it (it marks it so, xattr user.radoscp.mirror,
before copying anything, so an interrupted first run's rerun continues),
or it records a complete earlier sync of SUBVOL, or it is empty. Any
other TARGET (not empty and never synced from SUBVOL, or the mirror of
another subvolume) is refused with exit code 2, nothing written: a sync
removes what the snapshot lacks. --adopt-target makes such a TARGET
SUBVOL's mirror anyway (once; later runs know it by its mark).
--dry-run checks TARGET the same way and says what a sync would copy
and remove, writing nothing (no TARGET created, no snapshot taken).

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
	cmd.Flags().BoolVar(&req.Adopt, "adopt-target", false, "make an existing TARGET that is not SUBVOL's mirror (not empty, never synced from SUBVOL, or another subvolume's mirror) SUBVOL's mirror: what the snapshot lacks is removed from it")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "check TARGET, say what would be copied and removed, and write nothing (TARGET neither created nor snapshotted)")
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
		o.DryRun, req.DryRun = dryRun, dryRun
		ctx, stop := interruptContext(cmd)
		defer stop()
		run, prog, c, err := openSubvolumeCopy(cmd, cfg, o, req.Volume, req.Pool)
		if err != nil {
			return err
		}
		defer run.close()
		res, err := subvolume.New(run.runner.conn, run.fs, c).Sync(ctx, req)
		prog.finish()
		if err == nil && o.Sync == fscopy.SyncFS && !dryRun {
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
	Adopted      bool   `json:"adopted"`
}

func printSync(w io.Writer, asJSON bool, req subvolume.SyncRequest, res subvolume.SyncResult, err error) {
	if asJSON {
		j := jsonSync{jsonSummary: newJSONSummary(req.DryRun, shard.Shard{}, res.Summary, "", res.Elapsed, err),
			Volume: req.Volume, Subvolume: req.Subvolume, Snapshot: res.Snapshot, Target: req.Target,
			SnapshotPath: res.SnapshotPath, TargetPath: res.TargetPath, Created: res.Created, UpToDate: res.UpToDate, Snapshotted: res.Snapshotted, Adopted: res.Adopted}
		b, _ := json.Marshal(j)
		fmt.Fprintln(w, string(b))
		return
	}
	switch {
	case res.UpToDate:
		fmt.Fprintf(w, "subvolume %s has snapshot %s already: up to date, nothing copied\n", req.Target, res.Snapshot)
		return
	case req.DryRun && res.Created && err == nil:
		fmt.Fprintf(w, "dry run: subvolume %s does not exist: a sync would create it and copy snapshot %s of %s into it in full; nothing was written\n", req.Target, res.Snapshot, req.Subvolume)
		return
	case res.TargetPath == "":
		return // refused: main reports the error
	}
	if res.Adopted && !req.DryRun {
		fmt.Fprintf(w, "subvolume %s (cephfs:%s) is now the mirror of subvolume %s\n", req.Target, res.TargetPath, req.Subvolume)
	}
	printSummary(w, false, req.DryRun, shard.Shard{}, res.Summary, "", res.Elapsed, nil)
	if res.Snapshotted {
		fmt.Fprintf(w, "synced snapshot %s of %s into subvolume %s (cephfs:%s) and snapshotted it as %s in %.1fs\n",
			res.Snapshot, req.Subvolume, req.Target, res.TargetPath, res.Snapshot, res.Elapsed.Seconds())
	}
}
