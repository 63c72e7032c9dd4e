package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/address"
	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/names"
	"github.com/radoscp/radoscp/objcopy"
	"github.com/radoscp/radoscp/verify"
	"github.com/radoscp/radoscp/window"
)

// bindVerify adds --verify to a copying command: "true" (checksums on the
// OSDs), "client" or "false"; def is its value when not given.
func bindVerify(cmd *cobra.Command, v *string, def string) {
	cmd.Flags().StringVar(v, "verify", def, "verify each copy against its source before it is put in place: true (checksums computed by the OSDs), client (read through the client) or false")
	cmd.Flags().Lookup("verify").NoOptDefVal = "true"
}

func newVerifyCommand() *cobra.Command {
	var recursive, noPreserve, byClient bool
	var length, dstSize, snap string
	var shards shardFlags
	cmd := &cobra.Command{
		Use:   "verify [-r] SRC DST",
		Short: "Check that DST equals SRC, by checksums the OSDs compute",
		Long: `Compare DST with SRC object by object, by checksums computed on the OSDs
over the same byte ranges of both: only the sums cross the client. Holes on
both sides match; a hole on one side, an object shorter or longer than the
file's size gives it, and data past DST's end are differences. For cephfs:
paths also the metadata a copy keeps (mode, owner, mtime, xattrs;
--no-preserve: only the type), symlink targets and, with -r, whole trees.
SRC and DST are compared as given (no cp rule for an existing directory).

Exit codes: 0 identical, 1 something differs (one line per difference) or
could not be compared, 2 invalid input.`,
		Args: exactArgs(2, "SRC and DST"),
	}
	loader := config.Bind(cmd.Flags())
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "cephfs: verify directories and their contents")
	cmd.Flags().BoolVar(&noPreserve, "no-preserve", false, "cephfs: compare data and types only, not ownership, mode, times or xattrs")
	cmd.Flags().BoolVar(&byClient, "client", false, "read both sides through the client instead of checksums on the OSDs (layouts that differ)")
	cmd.Flags().StringVar(&length, "length", "", "rados: sources: the bytes to compare (they have no size)")
	cmd.Flags().StringVar(&dstSize, "dst-size", "", "rados: destinations: their size (default: --length)")
	shards.bind(cmd, false)
	cmd.Flags().StringVar(&snap, "snap", "", "rados:/striper: sources: compare pool snapshot NAME of the source's pool (a CephFS snapshot is a path)")
	hideFlags(cmd, "allow-missing", "offload-only", "pin-source")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		cfg, err := loadConfig(cmd, loader, false)
		if err != nil {
			return err
		}
		src, err := address.Parse(args[0])
		if err != nil {
			return usage("source: %v", err)
		}
		dst, err := address.Parse(args[1])
		if err != nil {
			return usage("destination: %v", err)
		}
		if (src.Scheme == address.CephFS) != (dst.Scheme == address.CephFS) {
			return usage("cannot compare %s with %s: cephfs: paths compare with cephfs: paths only", src, dst)
		}
		mode := verify.OSD
		if byClient {
			mode = verify.Client
		}
		ctx, stop := interruptContext(cmd)
		defer stop()
		if src.Scheme == address.CephFS {
			if snap != "" {
				return usage("--snap applies to rados: and striper: sources; a CephFS snapshot is a path, cephfs:/DIR/.snap/NAME/...")
			}
			if src.FS != dst.FS {
				return usage("comparisons between file systems (%q, %q) are not supported", src.FS, dst.FS)
			}
			sh, err := shards.parse(false)
			if err != nil {
				return err
			}
			return verifyFS(ctx, cmd, cfg, src, dst, recursive, fscopy.Options{NoPreserve: noPreserve, Verify: mode, Shard: sh})
		}
		if recursive || noPreserve || shards.spec != "" {
			return usage("-r, --no-preserve and --shard apply to cephfs: paths only")
		}
		return verifyObjects(ctx, cmd, cfg, src, dst, length, dstSize, snap, mode)
	}
	return cmd
}

// verifyObjects compares two raw object sets or striped objects.
func verifyObjects(ctx context.Context, cmd *cobra.Command, cfg config.Config, src, dst address.Address, length, dstSize, snap string, mode verify.Mode) error {
	r, err := newRunner(invocationOf(cmd), cfg)
	if err != nil {
		return err
	}
	defer r.close()
	side := func(a address.Address, size string, what string) (radoscp.Source, error) {
		at := snap
		if what != "source" {
			at = ""
		}
		p, err := r.objects.OpenPool(a, at)
		if err != nil {
			return radoscp.Source{}, err
		}
		if a.Scheme == address.Striper {
			meta, err := objcopy.StripedMeta(p, a, what)
			if err != nil {
				return radoscp.Source{}, err
			}
			if meta == nil {
				return radoscp.Source{}, usage("%s %s does not exist: no object %s", what, a, p.Ref(layout.Striper(a.Name).ObjectName(0)))
			}
			return radoscp.Source{Objects: p, Layout: meta.Layout, Names: layout.Striper(a.Name), Size: meta.Size}, nil
		}
		if size == "" {
			return radoscp.Source{}, usage("%s %s is a raw object set, which has no size: give --length (and --dst-size if the destination's differs)", what, a)
		}
		n, err := config.ParseBytes(size)
		if err != nil {
			return radoscp.Source{}, usage("%s size: %v", what, err)
		}
		l, err := flagLayout(cfg)
		if err != nil {
			return radoscp.Source{}, usageError{Err: err}
		}
		return radoscp.Source{Objects: p, Layout: l, Names: layout.Prefix(a.Name), Size: n}, nil
	}
	s, err := side(src, length, "source")
	if err != nil {
		return err
	}
	if dstSize == "" {
		dstSize = length
	}
	d, err := side(dst, dstSize, "destination")
	if err != nil {
		return err
	}
	res, err := verify.Check(ctx, mode, s, d, windowOf(cfg))
	r.session.metrics.Verified(res.Objects, res.Bytes, len(res.Differences))
	r.session.finish()
	printVerified(cmd.OutOrStdout(), cmd.ErrOrStderr(), cfg.JSON, src.String(), dst.String(), res, err)
	return reported(objcopy.VerifyError(res, err))
}

// windowOf is how many checksums are kept in flight.
func windowOf(cfg config.Config) int {
	if cfg.AutoWindow || cfg.Window <= 0 {
		return max(cmp.Or(cfg.MaxWindow, window.DefaultMaxWidth), window.DefaultWidth)
	}
	return cfg.Window
}

// jsonVerified is the line --json prints for a verification.
type jsonVerified struct {
	SchemaVersion int      `json:"schema_version"`
	Src           string   `json:"src"`
	Dst           string   `json:"dst"`
	Same          bool     `json:"same"`
	Objects       uint64   `json:"objects"`
	Bytes         uint64   `json:"bytes"`
	ClientBytes   uint64   `json:"client_bytes"`
	Differences   []string `json:"differences"`
	Error         *string  `json:"error"`
	// SrcB64 and DstB64 are the names' bytes, when they are not UTF-8
	// (names.Lossless).
	SrcB64 string `json:"src_b64,omitempty"`
	DstB64 string `json:"dst_b64,omitempty"`
	// ExitCode is set on the line of a failure found before anything
	// was compared, the only line such a run prints.
	ExitCode *int `json:"exit_code,omitempty"`
}

func printVerified(out, errw io.Writer, asJSON bool, src, dst string, res verify.Result, err error) {
	diffs := []string{}
	for _, d := range res.Differences {
		diffs = append(diffs, d.String())
	}
	printVerification(out, errw, asJSON, jsonVerified{Src: src, Dst: dst, Same: err == nil && res.Same(), Objects: res.Objects,
		Bytes: res.Bytes, ClientBytes: res.ClientBytes, Differences: diffs}, err)
}

func printVerification(out, errw io.Writer, asJSON bool, j jsonVerified, err error) {
	if err != nil {
		msg := err.Error()
		j.Error = &msg
	}
	j.SchemaVersion = jsonSchemaVersion
	j.SrcB64, j.DstB64 = names.Lossless(j.Src), names.Lossless(j.Dst)
	if asJSON {
		b, _ := json.Marshal(j)
		fmt.Fprintln(out, string(b))
		return
	}
	for _, d := range j.Differences {
		fmt.Fprintf(errw, "radoscp: differs: %s -> %s: %s\n", names.Quote(j.Src), names.Quote(j.Dst), d)
	}
	if j.Same {
		fmt.Fprintf(out, "identical: %s and %s (%s, %d bytes compared; %d bytes through the client)\n",
			names.Quote(j.Src), names.Quote(j.Dst), plural(int(j.Objects), "object", "objects"), j.Bytes, j.ClientBytes)
	}
}

// verifyFS compares two CephFS paths; o gives what to compare (NoPreserve,
// Verify, Shard).
func verifyFS(ctx context.Context, cmd *cobra.Command, cfg config.Config, src, dst address.Address, recursive bool, o fscopy.Options) error {
	run, err := openFS(invocationOf(cmd), cfg, src.FS)
	if err != nil {
		return err
	}
	defer run.close()
	o.Copy = withoutPins(copyOptions(cfg))
	c := fscopy.New(run.runner.engine, run.runner.conn, run.fs, o, nil)
	sum, err := c.Verify(ctx, src.Path, dst.Path, recursive, func(v fscopy.Verification) {
		run.runner.session.metrics.Verified(v.Data.Objects, v.Data.Bytes, len(v.Differences))
		j := jsonVerified{Src: "cephfs:" + v.Src, Dst: "cephfs:" + v.Dst, Same: v.Same(), Objects: v.Data.Objects,
			Bytes: v.Data.Bytes, ClientBytes: v.Data.ClientBytes, Differences: append([]string{}, v.Differences...)}
		if !cfg.JSON && v.Same() {
			return // only differences and failures, then the summary
		}
		printVerification(cmd.OutOrStdout(), cmd.ErrOrStderr(), cfg.JSON, j, v.Err)
	})
	run.runner.session.finish()
	if cfg.JSON {
		line := map[string]any{"schema_version": jsonSchemaVersion, "summary": true, "paths": sum.Paths, "differing": sum.Differing, "failed": sum.Failed,
			"bytes": sum.Bytes, "client_bytes": sum.ClientBytes}
		if o.Shard.On() {
			line["shard"] = o.Shard.String()
		}
		b, _ := json.Marshal(line)
		fmt.Fprintln(cmd.OutOrStdout(), string(b))
	} else if err == nil {
		share := ""
		if o.Shard.On() {
			share = " (shard " + o.Shard.String() + ")"
		}
		fmt.Fprintf(cmd.OutOrStdout(), "identical: %d paths%s, %d bytes of file data compared; %d bytes through the client\n",
			sum.Paths, share, sum.Bytes, sum.ClientBytes)
	}
	if errors.Is(err, fscopy.ErrUsage) {
		return reported(usageError{Err: err})
	}
	return reported(err)
}
