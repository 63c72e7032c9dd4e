package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/address"
	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/verify"
	"github.com/radoscp/radoscp/window"
)

// fsFlags are the flags of CephFS copies.
type fsFlags struct {
	recursive, noPreserve, resume bool
	ignoreTimes                   bool
	files                         int
	sync                          string
	verify                        string
	filter                        fscopy.Filter
	shard                         shardFlags
	del                           deleteFlags // cp only (delete.go)
}

func (f *fsFlags) bind(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&f.recursive, "recursive", "r", false, "cephfs: copy directories and their contents")
	cmd.Flags().IntVar(&f.files, "files", 4, fmt.Sprintf("cephfs: files copied at once, 1 to %d (each with --window objects in flight, all of them together at most %d); files of 1 MiB or less count 1/8 each", maxFiles, window.MaxInFlight))
	cmd.Flags().BoolVar(&f.noPreserve, "no-preserve", false, "cephfs: do not keep ownership, times and xattrs")
	cmd.Flags().BoolVar(&f.resume, "resume", false, "continue interrupted copies: cephfs: from their staging files instead of starting them over; striper: (same SRC, DST and offsets) from DST's published EOF")
	cmd.Flags().StringVar(&f.sync, "sync", "fs", "cephfs: when data is made durable: file (fsync each file), fs (one sync at the end) or off")
	bindVerify(cmd, &f.verify, "false")
	bindFilter(cmd, &f.filter)
	cmd.Flags().BoolVar(&f.ignoreTimes, "ignore-times", false, "cephfs: copy every file, also those whose destination has their size, mtime, mode and owner (which a rerun leaves alone)")
	f.shard.bind(cmd, true)
	f.del.bind(cmd)
}

// onlyForCephFS refuses CephFS-only flags on other copies.
func (f *fsFlags) onlyForCephFS(cmd *cobra.Command) error {
	// --resume applies to every copy (see resume.go).
	for _, name := range []string{"recursive", "files", "no-preserve", "sync", "exclude", "include", "ignore-times", "shard", "shard-by", "delete", "max-delete"} {
		if cmd.Flags().Changed(name) {
			return usage("--%s applies to cephfs: copies only", name)
		}
	}
	return nil
}

// maxFiles bounds --files: each file in flight is a file held open, with
// its capabilities, at the MDS. (Their copy-froms are bounded apart from
// this, by the engine: window.MaxInFlight over all of them.)
const maxFiles = 128

// options checks the flags and turns them into fscopy's options.
func (f *fsFlags) options(cmd *cobra.Command, cfg config.Config) (fscopy.Options, error) {
	o := fscopy.Options{
		// Files are checked by size, mtime and ctime instead (fscopy).
		Copy:        withoutPins(copyOptions(cfg)),
		Files:       f.files,
		NoPreserve:  f.noPreserve,
		Resume:      f.resume,
		IgnoreTimes: f.ignoreTimes,
	}
	if f.files < 1 || f.files > maxFiles {
		return o, usage("--files %d: expected 1 to %d (each file in flight holds it open, with its capabilities, at the MDS; "+
			"the copy-froms of all of them together stay within %d, docs/reference.md)", f.files, maxFiles, window.MaxInFlight)
	}
	if !f.filter.Empty() {
		o.Filter = &f.filter
	}
	var err error
	if o.Sync, err = fscopy.ParseSync(f.sync); err != nil {
		return o, usageError{Err: err}
	}
	if o.Verify, err = verify.ParseMode(f.verify); err != nil {
		return o, usageError{Err: err}
	}
	if o.Shard, err = f.shard.parse(true); err != nil {
		return o, err
	}
	if o.Delete, o.MaxDelete, err = f.del.options(cmd, f.recursive); err != nil {
		return o, err
	}
	if cmd.Flags().Changed("object-size") || cmd.Flags().Changed("stripe-unit") || cmd.Flags().Changed("stripe-count") {
		l, err := flagLayout(cfg)
		if err != nil {
			return o, usageError{Err: err}
		}
		o.Striping = &l
	}
	return o, nil
}

// fsRun is a CephFS command's connection, mount and copier.
type fsRun struct {
	runner  *runner
	session *cephfs.Session
	fs      *cephfs.FS
	name    string    // the file system's name, as the addresses give it
	start   time.Time // when the walk began, for the summary's time and rate
}

func openFS(inv *invocation, cfg config.Config, name string) (*fsRun, error) {
	s, err := cephfs.NewSession()
	if err != nil {
		return nil, err
	}
	r, err := newRunnerWith(inv, cfg, s.Options())
	if err != nil {
		s.Close()
		return nil, err
	}
	fs, err := s.Mount(r.conn, name)
	if err != nil {
		r.close()
		s.Close()
		return nil, missingFS(name, err)
	}
	return &fsRun{runner: r, session: s, fs: fs, name: name}, nil
}

func (f *fsRun) close() {
	_ = f.fs.Unmount()
	f.runner.close()
	_ = f.session.Close()
}

// finish syncs (with --sync fs) and reports the summary; it returns the
// error to exit with.
func (f *fsRun) finish(cmd *cobra.Command, cfg config.Config, o fscopy.Options, sum fscopy.Summary, err error) error {
	if o.Sync == fscopy.SyncFS && !o.DryRun {
		if serr := f.fs.SyncFS(); serr != nil {
			err = errors.Join(err, serr)
		}
	}
	f.runner.session.finish()
	err = f.fullDataPool(err)
	if sum.TimesReset > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "radoscp: warning: the MDS restarted or failed over during the run and recovered %s put in place as if its writer had died, moving the mtime to the copy's own write time; their times were set again from the sources and synced\n",
			plural(sum.TimesReset, "file", "files"))
	}
	into := ""
	if sum.Target != "" {
		into = cephfsAddress(f.name, sum.Target)
	}
	copied := sum.Files > 0 || f.runner.session.prog.bytes.Load() > 0
	stopped := errors.Is(err, context.Canceled) // an interrupt's
	if stopped {
		err = fsInterrupted(copied)
	}
	if errors.Is(err, fscopy.ErrUsage) && !copied && sum.Dirs == 0 {
		// Refused before anything was done: the error alone (main
		// prints it, and with --json the summary-shaped line with its
		// exit code), not a summary of zeros before it.
		return usageError{Err: err}
	}
	printSummary(cmd.OutOrStdout(), cfg.JSON, o.DryRun, o.Shard, sum, into, time.Since(f.start), err)
	switch {
	case stopped && copied:
		return reported(partialError{err})
	case errors.Is(err, fscopy.ErrUsage):
		return reported(usageError{Err: err})
	case errors.Is(err, fscopy.ErrMaxDelete):
		return reported(deleteLimitError{err})
	case err != nil && sum.Files > 0:
		return reported(partialError{err})
	}
	return reported(err)
}

func runFSCopy(ctx context.Context, cmd *cobra.Command, cfg config.Config, f cpFlags, req cpRequest) error {
	if req.src.FS != req.dst.FS {
		return usage("copies between file systems (%q, %q) are not supported", req.src.FS, req.dst.FS)
	}
	o, err := f.fs.options(cmd, cfg)
	if err != nil {
		return err
	}
	if o.Filter != nil && !f.fs.recursive {
		return usage("--exclude and --include pick paths of a tree: they apply with -r (and to migrate)")
	}
	o.NoClobber, o.DryRun = req.noClobber, req.dryRun
	if o.Shard.On() && !f.fs.recursive {
		return usage("--shard %s splits a tree copy: give -r", f.fs.shard.spec)
	}
	run, err := openFS(invocationOf(cmd), cfg, req.src.FS)
	if err != nil {
		return err
	}
	defer run.close()
	prog := run.runner.session.fileProgress()
	c := fscopy.New(run.runner.engine, run.runner.conn, run.fs, o, func(r fscopy.Report) {
		prog.file(r)
		printReport(cmd.OutOrStdout(), cmd.ErrOrStderr(), cfg.JSON, !f.fs.recursive, r)
	})
	src := contentsPath(req.src)
	if o.Resume {
		if err := c.CheckResume(src, req.dst.Path); err != nil {
			return usageError{Err: err}
		}
	}
	prog.count(ctx, c, req.src.Path) // a dry run too: its frames show the tree's total
	run.start = time.Now()
	sum, err := c.Copy(ctx, src, req.dst.Path, f.fs.recursive)
	prog.finish()
	return run.finish(cmd, cfg, o, sum, err)
}

func newMigrateCommand() *cobra.Command {
	var f fsFlags
	var pool string
	var noProgress, dryRun bool
	cmd := &cobra.Command{
		Use:   "migrate --pool POOL cephfs:/PATH",
		Short: "Move CephFS files to another data pool, server-side",
		Long: `Re-create every regular file under PATH (or PATH itself) in data pool
POOL: a staging file with the new layout, a server-side copy, the metadata
kept, then an atomic rename over the original, only if the original's
size, mtime and ctime did not change meanwhile. Changed files and hard
links are reported and left alone. The pool must be one of the file
system's data pools.`,
		Args: exactArgs(1, "one cephfs:/PATH"),
	}
	loader := config.Bind(cmd.Flags())
	cmd.Flags().StringVar(&pool, "pool", "", "the data pool to move files to (required)")
	cmd.Flags().BoolVar(&noProgress, "no-progress", false, "never show progress (same as --progress off)")
	cmd.Flags().IntVar(&f.files, "files", 4, fmt.Sprintf("files migrated at once, 1 to %d", maxFiles))
	cmd.Flags().BoolVar(&f.resume, "resume", false, "continue interrupted migrations from their staging files")
	cmd.Flags().StringVar(&f.sync, "sync", "fs", "when data is made durable: file, fs or off")
	bindVerify(cmd, &f.verify, "true")
	bindFilter(cmd, &f.filter)
	f.shard.bind(cmd, true)
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "say which files would be moved, left alone or skipped, and write nothing")
	hideFlags(cmd, "allow-missing")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		cfg, err := loadConfig(cmd, loader, noProgress)
		if err != nil {
			return err
		}
		a, err := address.Parse(args[0])
		if err != nil {
			return usageError{Err: err}
		}
		if a.Scheme != address.CephFS {
			return usage("migrate moves CephFS files: expected cephfs:/PATH, got %s", a)
		}
		if strings.TrimSpace(pool) == "" {
			return usage("--pool is required: the data pool to move the files to")
		}
		o, err := f.options(cmd, cfg)
		if err != nil {
			return err
		}
		o.Pool, o.DryRun = pool, dryRun
		ctx, stop := interruptContext(cmd)
		defer stop()
		run, err := openFS(invocationOf(cmd), cfg, a.FS)
		if err != nil {
			return err
		}
		defer run.close()
		if err := run.checkDataPool(a.FS, pool); err != nil {
			return err
		}
		prog := run.runner.session.fileProgress()
		c := fscopy.New(run.runner.engine, run.runner.conn, run.fs, o, func(r fscopy.Report) {
			prog.file(r)
			run.runner.session.verified(r.Verified)
			printReport(cmd.OutOrStdout(), cmd.ErrOrStderr(), cfg.JSON, false, r)
		})
		prog.count(ctx, c, a.Path)
		run.start = time.Now()
		sum, err := c.Migrate(ctx, a.Path)
		sum.Target = a.Path
		prog.finish()
		return run.finish(cmd, cfg, o, sum, err)
	}
	return cmd
}

// checkDataPool refuses a pool that is not one of the file system's data
// pools before anything is written (the MDS would refuse the layout of
// the first staging file, but only after creating it).
func (f *fsRun) checkDataPool(fsName, pool string) error {
	name, pools, ok, err := cephfs.DataPools(f.runner.conn, fsName)
	if err != nil || !ok || slices.Contains(pools, pool) {
		return err
	}
	return usage("--pool %q is not a data pool of file system %s (its data pools: %s)", pool, name, strings.Join(pools, ", "))
}

// cephfsAddress is the cephfs: address of path p in file system fsName
// ("" the default one).
func cephfsAddress(fsName, p string) string {
	if fsName == "" {
		return "cephfs:" + p
	}
	return "cephfs:" + fsName + ":" + p
}

// contentsPath is a's path, ending in "/" when a's did: rsync's
// convention for a directory's contents, which fscopy.Copy follows.
func contentsPath(a address.Address) string {
	if strings.HasSuffix(a.Raw, "/") && a.Path != "/" {
		return a.Path + "/"
	}
	return a.Path
}

func withoutPins(o radoscp.Options) radoscp.Options {
	o.PinSource = false
	return o
}
