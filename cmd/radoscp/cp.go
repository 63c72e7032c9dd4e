package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/address"
	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/truncate"
	"github.com/radoscp/radoscp/verify"
)

// cpFlags are cp's own flags, besides the shared configuration.
type cpFlags struct {
	srcOffset, dstOffset, length, dstSize string
	noProgress, noClobber, dryRun         bool
	// offsetsGiven is set when --src-offset or --dst-offset was given.
	offsetsGiven bool
	batch        string
	snap         string
	fs           fsFlags
}

func newCpCommand() *cobra.Command {
	var f cpFlags
	cmd := &cobra.Command{
		Use:   "cp [flags] SRC DST",
		Short: "Copy CephFS files and trees, raw object sets or striped objects with server-side copy-from",
		Long: `Copy SRC to DST inside the cluster. Addresses:
  cephfs:/PATH, cephfs:FSNAME:/PATH                CephFS file, symlink or (-r) directory
  rados:POOL/PREFIX, rados:POOL/NAMESPACE/PREFIX   raw object set PREFIX.%08x
  striper:POOL/NAME, striper:POOL/NAMESPACE/NAME   libradosstriper object

CephFS copies work like cp -a: if DST is an existing directory the copy is
DST/NAME, otherwise DST. Each file is written to a staging file next to its
destination and renamed into place when complete. A source under
DIR/.snap/NAME copies that snapshot; --snap NAME copies a rados: or
striper: source's pool snapshot NAME.

Exit codes: 0 copied, 1 failed with nothing copied, 2 invalid input (nothing
written), 3 a prefix was copied and published, then a failure.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("batch") {
				if len(args) != 0 {
					return usage("--batch takes its copies from the file, not from arguments (got %d)", len(args))
				}
				return nil
			}
			if len(args) != 2 {
				return usage("cp takes SRC and DST, got %s", plural(len(args), "argument", "arguments"))
			}
			return nil
		},
	}
	loader := config.Bind(cmd.Flags())
	cmd.Flags().StringVar(&f.srcOffset, "src-offset", "0", "byte offset in SRC (K, M, G, T suffixes: powers of 1024)")
	cmd.Flags().StringVar(&f.dstOffset, "dst-offset", "0", "byte offset in DST")
	cmd.Flags().StringVar(&f.length, "length", "", "bytes to copy (default: to SRC's EOF; required for rados: sources)")
	cmd.Flags().StringVar(&f.dstSize, "dst-size", "0", "current EOF of a rados: destination (it has no metadata to say)")
	cmd.Flags().BoolVar(&f.noProgress, "no-progress", false, "never show progress (same as --progress off)")
	cmd.Flags().BoolVar(&f.noClobber, "no-clobber", false, "refuse (exit 2) a destination that exists, before writing anything")
	cmd.Flags().StringVar(&f.snap, "snap", "", "rados:/striper: sources: copy pool snapshot NAME of the source's pool (as rados -s NAME); a CephFS snapshot is a path, cephfs:/DIR/.snap/NAME/...")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "say what would be copied, replaced, left alone or skipped, and write nothing")
	f.fs.bind(cmd)
	cmd.Flags().StringVar(&f.batch, "batch", "", `run the copies listed in FILE ("-" for stdin), one "SRC DST [LENGTH]" per line, over one connection; the config file is re-read before each copy, so a changed window applies to the next one`)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		cfg, err := loadConfig(cmd, loader, f.noProgress)
		if err != nil {
			return err
		}
		ctx, stop := interruptContext(cmd.ErrOrStderr())
		defer stop()
		f.offsetsGiven = cmd.Flags().Changed("src-offset") || cmd.Flags().Changed("dst-offset")
		if f.batch != "" {
			return runBatch(ctx, cmd, loader, cfg, f)
		}
		req, err := parseCpRequest(args, f, cmd.Flags().Changed("length"))
		if err != nil {
			return usageError{err}
		}
		if req.src.Scheme == address.CephFS {
			return runFSCopy(ctx, cmd, cfg, f, req)
		}
		if err := f.fs.onlyForCephFS(cmd); err != nil {
			return err
		}
		r, err := newRunner(cfg)
		if err != nil {
			return err
		}
		defer r.close()
		return r.copy(ctx, cmd, cfg, req)
	}
	return cmd
}

// cpRequest is a parsed cp command line.
type cpRequest struct {
	src, dst        address.Address
	srcOff, dstOff  uint64
	length, dstSize uint64
	haveLength      bool
	resume          bool
	noClobber       bool
	// snap is the pool snapshot of the source's pool to copy ("": head).
	snap string
	// ranged is a range copy (copy_file_range semantics: into the data
	// that is there) rather than a whole copy, which replaces the
	// destination: --src-offset or --dst-offset was given, or --length
	// of a source that has a size of its own.
	ranged bool
	// verify checks a whole copy against its source when it has ended.
	verify verify.Mode
	// dryRun says what the copy would do and writes nothing.
	dryRun bool
}

func parseCpRequest(args []string, f cpFlags, haveLength bool) (cpRequest, error) {
	r := cpRequest{resume: f.fs.resume, noClobber: f.noClobber, snap: f.snap, dryRun: f.dryRun}
	var err error
	if r.verify, err = verify.ParseMode(f.fs.verify); err != nil {
		return r, err
	}
	if r.src, err = address.Parse(args[0]); err != nil {
		return r, fmt.Errorf("source: %w", err)
	}
	if r.dst, err = address.Parse(args[1]); err != nil {
		return r, fmt.Errorf("destination: %w", err)
	}
	for _, v := range []struct {
		flag, value string
		dst         *uint64
	}{
		{"--src-offset", f.srcOffset, &r.srcOff},
		{"--dst-offset", f.dstOffset, &r.dstOff},
		{"--dst-size", f.dstSize, &r.dstSize},
	} {
		if *v.dst, err = config.ParseBytes(v.value); err != nil {
			return r, fmt.Errorf("%s: %w", v.flag, err)
		}
	}
	if haveLength {
		if r.length, err = config.ParseBytes(f.length); err != nil {
			return r, fmt.Errorf("--length: %w", err)
		}
		r.haveLength = true
	}
	if (r.src.Scheme == address.CephFS) != (r.dst.Scheme == address.CephFS) {
		return r, fmt.Errorf("cannot copy between %s and %s: cephfs: addresses copy to and from cephfs: only", r.src, r.dst)
	}
	if r.src.Scheme == address.CephFS {
		if f.snap != "" {
			return r, fmt.Errorf("--snap %q applies to rados: and striper: sources (pool snapshots); a CephFS snapshot is a path: cephfs:/DIR/.snap/NAME/...", f.snap)
		}
		for _, v := range []struct{ flag, value, zero string }{
			{"--src-offset", f.srcOffset, "0"}, {"--dst-offset", f.dstOffset, "0"}, {"--dst-size", f.dstSize, "0"}, {"--length", f.length, ""},
		} {
			if v.value != v.zero {
				return r, fmt.Errorf("%s does not apply to cephfs: copies, which copy whole files", v.flag)
			}
		}
		if f.noClobber && r.resume {
			return r, fmt.Errorf("--no-clobber and --resume contradict each other: a resume continues into an existing destination")
		}
		return r, nil
	}
	if f.noClobber && r.resume {
		return r, fmt.Errorf("--no-clobber and --resume contradict each other: a resume continues into an existing destination")
	}
	r.ranged = f.offsetsGiven || (r.haveLength && r.src.Scheme != address.Rados)
	if r.ranged && r.verify != verify.Off {
		return r, fmt.Errorf("--verify checks whole copies; it does not apply with --src-offset, --dst-offset or a --length of a striped source")
	}
	if r.src.Scheme == address.Rados && !r.haveLength {
		return r, fmt.Errorf("source %s is a raw object set, which has no size: give --length", r.src)
	}
	if err := checkResume(r); err != nil {
		return r, err
	}
	if r.dst.Scheme != address.Rados && f.dstSize != "0" {
		return r, fmt.Errorf("--dst-size applies to rados: destinations only; %s keeps its own size", r.dst)
	}
	return r, nil
}

// runner is one connection and everything copies over it share: the
// engine (which remembers for the connection's life whether copy-from
// works), metrics and logging.
type runner struct {
	conn    *rados.Conn
	session *session
	engine  *radoscp.Engine
}

func newRunner(cfg config.Config) (*runner, error) { return newRunnerWith(cfg, nil) }

// newRunnerWith connects with extra librados options.
func newRunnerWith(cfg config.Config, options map[string]string) (*runner, error) {
	conn, err := connectWith(cfg, options)
	if err != nil {
		return nil, err
	}
	session, err := newSession(cfg)
	if err != nil {
		conn.Close()
		return nil, usageError{err}
	}
	return &runner{conn: conn, session: session, engine: radoscp.NewEngine(session.observer(), session.log)}, nil
}

func (r *runner) close() {
	r.session.close()
	r.conn.Close()
}

// copy opens both ends of req, copies with cfg's settings and reports.
// The destination is locked (its copy lock) from before anything is
// written until the copy has ended.
func (r *runner) copy(ctx context.Context, cmd *cobra.Command, cfg config.Config, req cpRequest) error {
	if err := ownObjects(req); err != nil {
		return err
	}
	src, snap, err := openSource(r.conn, cfg, req)
	if err != nil {
		return err
	}
	length, err := copyLength(src, req)
	if err != nil {
		return err
	}
	opts := copyOptions(cfg)
	found, err := r.precheck(cfg, req, src, length, opts)
	if err != nil {
		return err
	}
	if req.dryRun {
		return r.dryRun(cmd.OutOrStdout(), cfg, req, src, length)
	}
	if err := checkPoolSpace(r.conn, req.dst.Pool); err != nil {
		return fmt.Errorf("destination %s: %w", req.dst, err)
	}
	dst, err := openDestination(r.conn, cfg, req, length)
	if err != nil {
		return err
	}
	defer closeDestination(cmd.ErrOrStderr(), req, dst)
	p, err := prepare(dst, cfg, req, length, found.rec)
	if err != nil {
		return err
	}
	req, length = p.req, p.length

	eofBefore := dst.EOF()
	session, engine := r.session, r.engine
	bar := session.progress(length)
	into := dst
	var guard *snapGuard
	if snap != nil {
		// A snapshot cannot change: nothing to pin. But it can be
		// removed: every publish first checks it is still there.
		opts.PinSource = false
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		guard = &snapGuard{Destination: dst, check: func() error { return r.conn.CheckPoolSnap(*snap) }, cancel: cancel}
		into = guard
	}
	res, cerr := engine.Copy(ctx, src, req.srcOff, into, req.dstOff, length, opts)
	bar.finish()
	if gerr := guard.failed(); gerr != nil {
		cerr = fmt.Errorf("%w; stopped the copy, publishing nothing read since the last check", gerr)
	}
	if cerr == nil {
		cerr = p.finish(dst, max(eofBefore, req.dstOff+length))
		if cerr != nil {
			res.PublishedEOF = dst.EOF()
		}
	}
	var checked *verify.Result
	if cerr == nil && req.verify != verify.Off {
		v, verr := verify.Check(ctx, req.verify, verify.Side(src),
			verify.Side{Objects: dst.Objects(), Layout: dst.Layout(), Names: dst.Names(), Size: dst.EOF()}, windowOf(cfg))
		session.metrics.Verified(v.Objects, v.Bytes, len(v.Differences))
		checked = &v
		if cerr = verifyError(v, verr); cerr != nil {
			for _, d := range v.Differences {
				fmt.Fprintf(cmd.ErrOrStderr(), "radoscp: differs: %s -> %s: %s\n", req.src, req.dst, d)
			}
			cerr = fmt.Errorf("%w; the copy is published as it is", cerr)
		}
	}
	if isInterrupt(cerr) {
		cerr = interrupted(cfg, req, res, length)
	}
	session.finish()
	printResultVerified(cmd.OutOrStdout(), cfg.JSON, res, checked, cerr)
	return reported(copyOutcome(res, checked, cerr, req, length, eofBefore))
}

// copyOutcome classifies a copy's end for its exit code: what was
// published decides between a partial copy and a failure.
func copyOutcome(res radoscp.Result, checked *verify.Result, cerr error, req cpRequest, length, eofBefore uint64) error {
	if checked != nil && cerr != nil {
		return cerr // copied, and found different: exit 1
	}
	switch {
	case cerr == nil:
		return nil
	case res.Bytes > 0 && res.PublishedEOF >= req.dstOff+res.Bytes:
		return partialError{fmt.Errorf("copied %d of %d bytes, then: %w", res.Bytes, length, cerr)}
	case res.Bytes > 0 && res.PublishedEOF > max(eofBefore, req.dstOff):
		// A checkpoint published part of the prefix, the final
		// publish failed.
		return partialError{fmt.Errorf("copied %d of %d bytes, published up to EOF %d, then: %w", res.Bytes, length, res.PublishedEOF, cerr)}
	case res.Bytes > 0:
		// The prefix is in place but its EOF could not be published:
		// as far as any reader knows, nothing was copied.
		return fmt.Errorf("copied %d of %d bytes but could not publish them (EOF stays %d): %w", res.Bytes, length, res.PublishedEOF, cerr)
	default:
		return cerr
	}
}

// prepared is a copy made ready under the destination's lock: the request
// (moved forward by --resume) and the record to finish with.
type prepared struct {
	req    cpRequest
	length uint64
	rec    *sourceRecord // striped destinations
}

// prepare readies dst for req under its copy lock, before the engine
// writes anything:
//
//   - --resume (striped): the record left by the interrupted copy must be
//     of this request and this source, unchanged (else invalid input); the
//     request moves past the published EOF.
//   - a whole copy (no --src-offset, --dst-offset, or --length of a sized
//     source) replaces the destination: it is emptied first, so that the
//     copy runs with its window and ends at the source's size.
//   - a range copy writes into the data that is there (copy_file_range).
//
// Striped destinations get rec, the source's record precheck read, before
// any byte is written. Nothing here refuses a copy precheck let through,
// unless the destination changed in between.
func prepare(dst radoscp.Destination, cfg config.Config, req cpRequest, length uint64, rec *sourceRecord) (prepared, error) {
	p := prepared{req: req, length: length}
	width := statWidth(cfg)
	switch d := dst.(type) {
	case *truncate.Raw:
		if !req.ranged {
			if err := d.Replace(width); err != nil {
				return p, fmt.Errorf("destination %s: %w", req.dst, err)
			}
		}
		return p, nil
	case *truncate.Striper:
		old, err := readRecord(d, req)
		if err != nil {
			return p, err
		}
		if old != nil {
			rec.Dirty = max(rec.Dirty, old.Dirty)
		}
		p.rec = rec
		switch {
		case req.resume:
			if err := checkResumable(old, *rec, d.EOF(), req); err != nil {
				return p, err
			}
			p.req, p.length = resumed(d.EOF(), req, length)
			err = d.SetRecord(rec.encode())
		case !req.ranged:
			rec.Dirty = max(rec.Dirty, d.EOF())
			err = d.Replace(rec.encode(), rec.Dirty, width)
		default:
			err = d.SetRecord(rec.encode())
		}
		if err != nil {
			return p, fmt.Errorf("destination %s: %w", req.dst, err)
		}
	}
	return p, nil
}

// finish completes a copy that succeeded, still under the lock: a striped
// destination's striper.size, read afresh from the OSD, must be end (a
// different one means another writer ignored the lock); whatever an
// earlier interrupted copy wrote past end is cut back; the record goes.
func (p prepared) finish(dst radoscp.Destination, end uint64) error {
	d, ok := dst.(*truncate.Striper)
	if !ok || p.rec == nil {
		return nil
	}
	size, err := d.StoredSize()
	if err != nil {
		return fmt.Errorf("reading back striper.size of %s: %w", p.req.dst, err)
	}
	if size != end {
		return fmt.Errorf("%s: striper.size reads %d after the copy, expected %d: another writer changed the destination during the copy", p.req.dst, size, end)
	}
	if p.rec.Dirty > end {
		if err := d.TrimPast(p.rec.Dirty); err != nil {
			return fmt.Errorf("%s: removing what an interrupted copy left past EOF %d: %w", p.req.dst, end, err)
		}
	}
	if err := d.ClearRecord(); err != nil {
		return fmt.Errorf("%s: removing the record of the copy: %w", p.req.dst, err)
	}
	return nil
}

// copyOptions is what the configuration asks of every copy.
// A throttle (--max-rate, --max-ops) is made here, once per call: a tree
// copy or migrate shares it among all its files.
func copyOptions(cfg config.Config) radoscp.Options {
	return radoscp.Options{Window: cfg.Window, Auto: cfg.AutoWindow, MaxWindow: cfg.MaxWindow,
		Chunk: cfg.Chunk, OffloadOnly: cfg.OffloadOnly, PinSource: cfg.PinSource,
		Throttle: radoscp.NewThrottle(float64(cfg.MaxRate), float64(cfg.MaxOps), nil)}
}

func connect(cfg config.Config) (*rados.Conn, error) { return connectWith(cfg, nil) }

// connectWith connects with extra librados options.
func connectWith(cfg config.Config, options map[string]string) (*rados.Conn, error) {
	if err := checkConf(cfg); err != nil {
		return nil, err
	}
	defer waitingForMonitor(stderr, cfg)()
	conn, err := rados.Connect(rados.ConnConfig{
		Options:        options,
		ConfPath:       cfg.Conf,
		ID:             cfg.ID,
		Name:           cfg.Name,
		Keyring:        cfg.Keyring,
		ConnectTimeout: cfg.ConnectTimeout,
		OpTimeout:      cfg.OpTimeout,
	})
	if err != nil {
		return nil, keyringError(cfg, err)
	}
	warnOpenKeyring(stderr, conn, cfg.Keyring)
	return conn, nil
}
