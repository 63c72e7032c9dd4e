package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp/address"
	"github.com/radoscp/radoscp/config"
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
		Short: "Copy CephFS trees, raw object sets or striped objects server-side",
		Long: `Copy SRC to DST inside the cluster. Addresses:
  cephfs:/PATH, cephfs:FSNAME:/PATH               CephFS file, symlink or
                                                  (-r) directory
  rados:POOL/PREFIX, rados:POOL/NAMESPACE/PREFIX  raw object set PREFIX.%08x
  striper:POOL/NAME, striper:POOL/NAMESPACE/NAME  libradosstriper object

CephFS copies work like cp -a: if DST is an existing directory the copy is
DST/NAME, otherwise DST. Each file is written to a staging file next to its
destination and renamed into place when complete. A source under
DIR/.snap/NAME copies that snapshot; --snap NAME copies a rados: or
striper: source's pool snapshot NAME.

Exit codes: 0 copied, 1 failed with nothing copied, 2 invalid input (nothing
written), 3 a prefix was copied and published, then a failure, 4 a tree
copy complete but --max-delete stopped its --delete.`,
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
		ctx, stop := interruptContext(cmd)
		defer stop()
		f.offsetsGiven = cmd.Flags().Changed("src-offset") || cmd.Flags().Changed("dst-offset")
		if f.batch != "" {
			return runBatch(ctx, cmd, loader, cfg, f)
		}
		req, err := parseCpRequest(args, f, cmd.Flags().Changed("length"))
		if err != nil {
			return usageError{Err: err}
		}
		if req.src.Scheme == address.CephFS {
			return runFSCopy(ctx, cmd, cfg, f, req)
		}
		if err := f.fs.onlyForCephFS(cmd); err != nil {
			return err
		}
		r, err := newRunner(invocationOf(cmd), cfg)
		if err != nil {
			return err
		}
		defer r.close()
		return r.copy(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), cfg, req)
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
