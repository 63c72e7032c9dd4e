package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/address"
	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/truncate"
)

// dryRun says what cp of req would do with src's length bytes, and
// writes nothing: the destination is only read (a striped object's
// size, which raw objects exist), and refused as a real run would refuse
// it (--no-clobber, a full pool). It takes no lock, so a copy running
// into the destination is not seen.
func (r *runner) dryRun(w io.Writer, cfg config.Config, req cpRequest, src radoscp.Source, length uint64) error {
	if err := checkPoolSpace(r.conn, req.dst.Pool); err != nil {
		return fmt.Errorf("destination %s: %w", req.dst, err)
	}
	p, err := openPool(r.conn, req.dst)
	if err != nil {
		return err
	}
	action, eof, err := dryRunDestination(p, cfg, req, length)
	if err != nil {
		return err
	}
	if action == "resume" {
		req, length = resumed(eof, req, length)
	}
	res := radoscp.Result{Bytes: length, Objects: objectsIn(src, req.srcOff, length), Window: windowOf(cfg),
		PublishedEOF: req.dstOff + length}
	if req.ranged || action == "resume" {
		res.PublishedEOF = max(eof, req.dstOff+length)
	}
	if cfg.JSON {
		j := toJSON(res, nil)
		j.DryRun, j.DryRunAction = true, action
		b, _ := json.Marshal(j)
		fmt.Fprintln(w, string(b))
		return nil
	}
	what := map[string]string{
		"create":     "a new destination",
		"replace":    fmt.Sprintf("replacing it (its EOF now %d)", eof),
		"write-into": fmt.Sprintf("writing into its data (its EOF now %d)", eof),
		"resume":     fmt.Sprintf("continuing from its published EOF %d", eof),
	}[action]
	fmt.Fprintf(w, "dry run: would copy %d bytes (%s) %s -> %s, %s; the EOF would be %d; nothing was written\n",
		length, plural(int(res.Objects), "object", "objects"), req.src, req.dst, what, res.PublishedEOF)
	return nil
}

// dryRunDestination reads what the copy would find at req's destination:
// the action (create, replace, write-into, resume) and its EOF now.
func dryRunDestination(p *rados.Pool, cfg config.Config, req cpRequest, length uint64) (string, uint64, error) {
	var eof uint64
	exists := false
	switch req.dst.Scheme {
	case address.Striper:
		meta, err := readDestinationMeta(p, req)
		if err != nil {
			return "", 0, err
		}
		if meta != nil {
			exists, eof = true, meta.Size
		}
	default:
		l, err := flagLayout(cfg)
		if err != nil {
			return "", 0, usageError{err}
		}
		obj, err := truncate.NewRaw(p, l, req.dst.Name, 0).Existing(req.dstOff, req.dstOff+length, statWidth(cfg))
		if err != nil {
			return "", 0, fmt.Errorf("destination %s: %w", req.dst, err)
		}
		exists, eof = obj != "" || req.dstSize > 0, req.dstSize
	}
	switch {
	case exists && req.noClobber:
		return "", 0, usage("destination %s exists and --no-clobber is set", req.dst)
	case req.resume:
		return "resume", eof, nil
	case !exists:
		return "create", eof, nil
	case req.ranged:
		return "write-into", eof, nil
	}
	return "replace", eof, nil
}

// objectsIn counts the source objects [off, off+length) touches.
func objectsIn(src radoscp.Source, off, length uint64) uint64 {
	seen := map[uint64]bool{}
	for ext := range src.Layout.Extents(off, length) {
		seen[ext.ObjectNo] = true
	}
	return uint64(len(seen))
}

// printDryRun prints the line of a path a CephFS dry run would copy,
// move, link or make.
func printDryRun(w io.Writer, r fscopy.Report) {
	switch r.Outcome {
	case fscopy.Copied:
		if r.Src == r.Dst { // migrate
			fmt.Fprintf(w, "would move cephfs:%s (%d bytes): %s\n", r.Src, r.Result.Bytes, r.Reason)
			return
		}
		fmt.Fprintf(w, "would copy cephfs:%s -> cephfs:%s (%d bytes)%s\n", r.Src, r.Dst, r.Result.Bytes, flag(r.Reason != "", "; "+r.Reason))
	case fscopy.Dir:
		if r.Reason != "" {
			fmt.Fprintf(w, "would make directory cephfs:%s\n", r.Dst)
		}
	case fscopy.Linked:
		fmt.Fprintf(w, "would create symlink cephfs:%s\n", r.Dst)
	case fscopy.Special:
		fmt.Fprintf(w, "would make special file cephfs:%s\n", r.Dst)
	case fscopy.HardLink:
		fmt.Fprintf(w, "would link cephfs:%s: %s\n", r.Dst, r.Reason)
	}
}
