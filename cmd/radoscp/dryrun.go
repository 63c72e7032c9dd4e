package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/names"
	"github.com/radoscp/radoscp/objcopy"
)

// printDryRun prints the line of a path a CephFS dry run would copy,
// move, link or make.
func printDryRun(w io.Writer, r fscopy.Report) {
	switch r.Outcome {
	case fscopy.Copied:
		if r.Src == r.Dst { // migrate
			fmt.Fprintf(w, "would move %s (%d bytes): %s\n", cephfsName(r.Src), r.Result.Bytes, r.Reason)
			return
		}
		fmt.Fprintf(w, "would copy %s -> %s (%d bytes)%s\n", cephfsName(r.Src), cephfsName(r.Dst), r.Result.Bytes, flag(r.Reason != "", "; "+r.Reason))
	case fscopy.Dir:
		if r.Reason != "" {
			fmt.Fprintf(w, "would make directory %s\n", cephfsName(r.Dst))
		}
	case fscopy.Linked:
		fmt.Fprintf(w, "would create symlink %s\n", cephfsName(r.Dst))
	case fscopy.Special:
		fmt.Fprintf(w, "would make special file %s\n", cephfsName(r.Dst))
	case fscopy.HardLink:
		fmt.Fprintf(w, "would link %s: %s\n", cephfsName(r.Dst), r.Reason)
	case fscopy.Deleted:
		fmt.Fprintf(w, "would delete %s (not in the source)\n", cephfsName(r.Dst))
	}
}

// printObjectDryRun prints what a rados: or striper: copy's dry run o
// found it would do.
func printObjectDryRun(w io.Writer, asJSON bool, req cpRequest, o objcopy.Outcome) {
	res := o.Result
	if asJSON {
		j := toJSON(res, nil)
		j.setNames(req)
		j.DryRun, j.DryRunAction = true, o.DryRun
		b, _ := json.Marshal(j)
		fmt.Fprintln(w, string(b))
		return
	}
	eof := o.DryRunEOF
	what := map[string]string{
		"create":     "a new destination",
		"replace":    fmt.Sprintf("replacing it (its EOF now %d)", eof),
		"write-into": fmt.Sprintf("writing into its data (its EOF now %d)", eof),
		"resume":     fmt.Sprintf("continuing from its published EOF %d", eof),
	}[o.DryRun]
	fmt.Fprintf(w, "dry run: would copy %d bytes (%s by copy-from) %s -> %s, %s; the EOF would be %d; nothing was written\n",
		o.Length, plural(int(res.Objects), "object", "objects"), names.Quote(req.src.String()), names.Quote(req.dst.String()), what, res.PublishedEOF)
}
