package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/subvolume"
	"github.com/radoscp/radoscp/window"
)

func newSubvolumeCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "subvolume",
		Short: "CephFS subvolumes: clone or sync a snapshot server-side",
	}
	cmd.AddCommand(newSubvolumeCloneCommand())
	cmd.AddCommand(newSubvolumeSyncCommand())
	return cmd
}

func newSubvolumeCloneCommand() *cobra.Command {
	var f fsFlags
	var req subvolume.Request
	var noProgress bool
	cmd := &cobra.Command{
		Use:   "clone VOL SUBVOL SNAP TARGET",
		Short: "Clone a subvolume's snapshot into a new subvolume, server-side",
		Long: `Clone snapshot SNAP of subvolume SUBVOL of volume VOL into a new
subvolume TARGET, as 'ceph fs subvolume snapshot clone' does, with the
data copied server-side. TARGET gets SUBVOL's data pool (or --pool) and
quota, and the snapshot root's mode, owner, times, layout and quotas; the
tree keeps what cp -r keeps (hard links, symlinks, directory layouts and
quotas, xattrs). The copy goes to a staging directory inside TARGET,
whose entries are moved into place when all is copied; until the end
TARGET is mode 0700, owned by root. An interrupted clone is continued by
the same command with --resume; a failed clone's TARGET is removed.

Exit codes: 0 cloned, 1 failed (TARGET removed, or the message says it
could not be), 2 invalid input (nothing written), 3 interrupted (--resume
continues).`,
		Args: exactArgs(4, "VOL SUBVOL SNAP TARGET"),
	}
	loader := config.Bind(cmd.Flags())
	cmd.Flags().StringVar(&req.Group, "group", "", "the source subvolume's group (default: none)")
	cmd.Flags().StringVar(&req.TargetGroup, "target-group", "", "the group to create TARGET in (default: none)")
	cmd.Flags().StringVar(&req.Pool, "pool", "", "TARGET's data pool (default: SUBVOL's)")
	cmd.Flags().BoolVar(&noProgress, "no-progress", false, "never show progress (same as --progress off)")
	cmd.Flags().IntVar(&f.files, "files", 4, fmt.Sprintf("files copied at once, 1 to %d (each with --window objects in flight, all of them together at most %d)", maxFiles, window.MaxInFlight))
	cmd.Flags().BoolVar(&f.noPreserve, "no-preserve", false, "do not keep ownership, times, xattrs, directory layouts and quotas")
	cmd.Flags().BoolVar(&f.resume, "resume", false, "continue an interrupted clone into TARGET, and its files of more than one object from where they stopped")
	cmd.Flags().StringVar(&f.sync, "sync", "fs", "when data is made durable: file (fsync each file), fs (one sync before the clone is complete) or off")
	bindVerify(cmd, &f.verify, "false")
	f.shard.bind(cmd, true)
	hideFlags(cmd, "allow-missing")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		cfg, err := loadConfig(cmd, loader, noProgress)
		if err != nil {
			return err
		}
		req.Volume, req.Subvolume, req.Snapshot, req.Target = args[0], args[1], args[2], args[3]
		o, err := f.options(cmd, cfg)
		if err != nil {
			return err
		}
		o.Pool, req.Resume, req.Sync, req.Shard = req.Pool, f.resume, o.Sync != fscopy.SyncOff, o.Shard
		if o.Sync == fscopy.SyncFS {
			o.Sync = fscopy.SyncOff // the clone syncs once, before it is complete
		}
		ctx, stop := interruptContext(cmd)
		defer stop()
		run, prog, c, err := openSubvolumeCopy(cmd, cfg, o, req.Volume, req.Pool)
		if err != nil {
			return err
		}
		defer run.close()
		cl := subvolume.New(run.runner.conn, run.fs, c)
		if snap, err := cl.SnapshotPath(req); err == nil {
			prog.count(ctx, c, snap) // the display's total, else it says "counting the tree" to the end
		}
		res, err := cl.Clone(ctx, req)
		prog.finish()
		run.runner.session.finish()
		printClone(cmd.OutOrStdout(), cfg.JSON, req, res, err)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, fscopy.ErrUsage) && res.State == subvolume.Refused:
			return reported(usageError{Err: err})
		case res.State == subvolume.Interrupted:
			return reported(partialError{err})
		}
		return reported(err)
	}
	return cmd
}

// jsonClone is the last line --json prints for subvolume clone: the tree
// copy's summary and what became of the target.
type jsonClone struct {
	jsonSummary
	Volume        string `json:"volume"`
	Group         string `json:"group"`
	Subvolume     string `json:"subvolume"`
	Snapshot      string `json:"snapshot"`
	Target        string `json:"target"`
	TargetGroup   string `json:"target_group"`
	SnapshotPath  string `json:"snapshot_path"`
	TargetPath    string `json:"target_path"`
	State         string `json:"state"`
	Created       bool   `json:"created"`
	Resumed       bool   `json:"resumed"`
	TargetRemoved bool   `json:"target_removed"`
}

func printClone(w io.Writer, asJSON bool, req subvolume.Request, res subvolume.Result, err error) {
	s := res.Summary
	if asJSON {
		j := jsonClone{
			jsonSummary: jsonSummary{SchemaVersion: jsonSchemaVersion, Summary: true, Files: s.Files, Symlinks: s.Symlinks,
				HardLinks: s.HardLinks, Dirs: s.Dirs, Skipped: s.Skipped, Unchanged: s.Unchanged, Failed: s.Failed, Excluded: s.Excluded,
				Bytes: s.Bytes, ElapsedSeconds: res.Elapsed.Seconds(), Shard: req.Shard.String(), Missed: s.Missed, Changed: s.Changed, Extra: s.Extra},
			Volume: req.Volume, Group: req.Group, Subvolume: req.Subvolume, Snapshot: req.Snapshot,
			Target: req.Target, TargetGroup: req.TargetGroup, SnapshotPath: res.SnapshotPath, TargetPath: res.TargetPath,
			State: string(res.State), Created: res.Created, Resumed: res.Resumed, TargetRemoved: res.TargetRemoved,
		}
		if req.Shard.Worker() {
			j.Seen = &s.Seen
		}
		if err != nil {
			msg := plainWords(flagWords(err))
			j.Error, j.Errno = &msg, int(store.ErrnoOf(err))
		}
		b, _ := json.Marshal(j)
		fmt.Fprintln(w, string(b))
		return
	}
	if res.State == subvolume.Refused {
		return // main reports the error
	}
	printSummary(w, false, false, req.Shard, s, "", res.Elapsed, nil) // the target is named below
	if err == nil {
		fmt.Fprintf(w, "cloned snapshot %s of %s into subvolume %s (cephfs:%s) in %.1fs\n",
			req.Snapshot, req.Subvolume, req.Target, res.TargetPath, res.Elapsed.Seconds())
	}
}
