package objcopy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/address"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/truncate"
	"golang.org/x/sync/errgroup"
)

// --resume continues an interrupted copy into a striped object from the
// destination's published EOF (CephFS copies resume from their staging
// files, in fscopy; raw object sets record no EOF and are refused). Everything below that EOF is the source's (the engine publishes only
// a complete prefix), so the rest of the copy is the same request moved
// forward by what was published: the same source bytes land at the same
// destination offsets. Objects an interrupted run wrote past the EOF are
// inside the rest of the range and are replaced (copy-from) or overwritten
// (client writes) by the resumed copy.
//
// That holds only if the resumed copy has the same source, unchanged, and
// the same offsets. So every copy into a striped object records what it
// copies on the destination's object 0 (xattr radoscp.source) before it
// writes a byte, and removes the record when it is complete; --resume
// compares it with the source as it is now and refuses (exit 2) a
// different one.

// sourceRecord is what a copy into a striped object records: the request
// and the source's identity (address, size, and a digest of the version of
// every source object in the range, which any write to one changes; for a
// striped source's object 0, which libradosstriper's readers lock, the
// OSD's checksum of its data instead).
type sourceRecord struct {
	Source    string `json:"source"` // scheme:pool/namespace/name
	Size      uint64 `json:"size"`
	SrcOffset uint64 `json:"src_offset"`
	DstOffset uint64 `json:"dst_offset"`
	Length    uint64 `json:"length"`
	Objects   uint64 `json:"objects"`  // source objects in the range
	Versions  string `json:"versions"` // sha256 of their versions, hex
	// Dirty is how far into the destination this copy, or an earlier
	// interrupted one, may have written: a finished copy cleans up to it.
	Dirty uint64 `json:"dirty"`
}

// newSourceRecord stats every source object of the copy's range, width at
// a time, and records their versions.
func newSourceRecord(src radoscp.Source, req Request, length uint64, width int) (sourceRecord, error) {
	name := req.Src.Canonical()
	if req.Snap != "" {
		name += "@" + req.Snap // a resume of a pool snapshot's copy continues only from that snapshot
	}
	rec := sourceRecord{Source: name, Size: src.Size, SrcOffset: req.SrcOffset, DstOffset: req.DstOffset,
		Length: length, Dirty: req.DstOffset + length}
	if length == 0 {
		return rec, nil
	}
	l := src.Layout
	first := req.SrcOffset / l.SetSize() * l.StripeCount
	end := (req.SrcOffset + length + l.SetSize() - 1) / l.SetSize() * l.StripeCount
	versions := make([]string, end-first)
	var g errgroup.Group
	g.SetLimit(max(width, 1))
	for obj := first; obj < end; obj++ {
		g.Go(func() error {
			v, err := objectVersion(src, req, obj)
			versions[obj-first] = v
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return rec, fmt.Errorf("source %s: reading its versions: %w", req.Src, err)
	}
	h := sha256.New()
	for i, v := range versions {
		fmt.Fprintf(h, "%d=%s\n", first+uint64(i), v)
	}
	rec.Objects = end - first
	rec.Versions = hex.EncodeToString(h.Sum(nil))
	return rec, nil
}

// objectVersion is what the record keeps of source object obj: its
// version, "-" when it does not exist, or, for a striped object's object
// 0, its size and checksum (libradosstriper readers lock object 0, a
// write: its version moves).
func objectVersion(src radoscp.Source, req Request, obj uint64) (string, error) {
	oid := src.Names.ObjectName(obj)
	st, err := src.Objects.Stat(oid)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "-", nil
	case err != nil:
		return "", err
	case obj == 0 && req.Src.Scheme == address.Striper:
		var sum uint64
		if st.Size > 0 {
			if sum, err = src.Objects.Checksum(oid, 0, st.Size); err != nil {
				return "", err
			}
		}
		return fmt.Sprintf("size %d xxhash64 %x", st.Size, sum), nil
	}
	return strconv.FormatUint(st.Version, 10), nil
}

func (r sourceRecord) encode() []byte {
	b, _ := json.Marshal(r)
	return b
}

// readRecord reads dst's record; nil if there is none. A record that does
// not parse is reported, not ignored.
func readRecord(dst *truncate.Striper, req Request) (*sourceRecord, error) {
	b, err := dst.Record()
	if err != nil {
		return nil, err
	}
	return parseRecord(b, req)
}

// parseRecord parses a record read from req's destination; nil for none.
func parseRecord(b []byte, req Request) (*sourceRecord, error) {
	if b == nil {
		return nil, nil
	}
	var rec sourceRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("destination %s: its record of the copy in progress (xattr radoscp.source %q) does not parse: %w", req.Dst, b, err)
	}
	return &rec, nil
}

// checkResumable says whether --resume may continue into dst, whose record
// is old (nil if none), with the copy cur. It refuses (invalid input,
// nothing written) a record of another copy or of a source that changed
// since, and a destination without a record that holds data of this copy's
// range but not all of it (nothing says where it came from).
func checkResumable(old *sourceRecord, cur sourceRecord, eof uint64, req Request) error {
	end := cur.DstOffset + cur.Length
	if old == nil {
		switch {
		case eof <= cur.DstOffset, eof == end:
			// Nothing of this copy yet (a copy killed before it
			// recorded anything), or complete (killed after it
			// removed its record).
			return nil
		}
		return usage("--resume: %s holds %d bytes but no record of an interrupted copy (radoscp records one while copying): it was not written by an interrupted radoscp cp of %s; copy without --resume to replace it",
			req.Dst, eof, req.Src)
	}
	switch {
	case old.Source != cur.Source || old.SrcOffset != cur.SrcOffset || old.DstOffset != cur.DstOffset || old.Length != cur.Length:
		return usage("--resume: %s holds an interrupted copy of %s (src-offset %d, dst-offset %d, length %d), not of %s (src-offset %d, dst-offset %d, length %d): copy without --resume to replace it",
			req.Dst, old.Source, old.SrcOffset, old.DstOffset, old.Length, cur.Source, cur.SrcOffset, cur.DstOffset, cur.Length)
	case old.Size != cur.Size || old.Objects != cur.Objects || old.Versions != cur.Versions:
		return usage("--resume: source %s changed since the interrupted copy into %s began (size %d, versions %.12s then; size %d, versions %.12s now): copy without --resume to start over",
			req.Src, req.Dst, old.Size, old.Versions, cur.Size, cur.Versions)
	}
	return nil
}

// resumed returns req moved past what dst already published, with the
// length left to copy. A destination whose EOF is at or before the copy's
// start has nothing of this copy, and the whole request runs; one whose EOF
// is at or past the copy's end is finished, and the length left is 0.
func resumed(eof uint64, req Request, length uint64) (Request, uint64) {
	if eof <= req.DstOffset {
		return req, length
	}
	done := min(eof-req.DstOffset, length)
	req.SrcOffset += done
	req.DstOffset += done
	return req, length - done
}
