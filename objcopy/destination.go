package objcopy

import (
	"fmt"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/truncate"
)

// destination is an opened destination with its part of the copy
// protocol; rawDestination and stripedDestination implement it. A new kind
// of destination opens in openDestination and implements this.
type destination interface {
	radoscp.Destination
	// Lock is the copy lock the destination holds.
	Lock() *truncate.CopyLock
	// prepare readies the destination for req under its copy lock,
	// before the engine writes anything, and returns the request moved
	// forward by --resume with the length left to copy. rec is the
	// source's record precheck made (nil for raw destinations).
	//
	//   - a whole copy (not req.Ranged) replaces the destination: it is
	//     emptied first, so that the copy runs with its window and ends
	//     at the source's size.
	//   - a range copy writes into the data that is there
	//     (copy_file_range); one starting past a striped destination's
	//     EOF first cuts back what an interrupted copy left past it.
	//   - --resume (striped): the record left by the interrupted copy
	//     must be of this request and this source, unchanged (else
	//     invalid input); the request moves past the published EOF.
	//
	// Nothing here refuses a copy precheck let through, unless the
	// destination changed in between.
	prepare(req Request, length uint64, rec *sourceRecord) (Request, uint64, error)
	// finish completes a copy that succeeded, ending at end, still under
	// the lock.
	finish(req Request, end uint64) error
}

var (
	_ destination = rawDestination{}
	_ destination = (*stripedDestination)(nil)
)

// rawDestination is a raw object set: no metadata, nothing to finish.
type rawDestination struct{ *truncate.Raw }

func (d rawDestination) prepare(req Request, length uint64, _ *sourceRecord) (Request, uint64, error) {
	if !req.Ranged {
		if err := d.Replace(req.Width); err != nil {
			return req, length, fmt.Errorf("destination %s: %w", req.Dst, err)
		}
	}
	return req, length, nil
}

func (rawDestination) finish(Request, uint64) error { return nil }

// stripedDestination is a striped object, which records the copy in
// progress on its object 0 (see resume.go) from prepare to finish.
type stripedDestination struct {
	*truncate.Striper
	rec *sourceRecord
}

func (d *stripedDestination) prepare(req Request, length uint64, rec *sourceRecord) (Request, uint64, error) {
	old, err := readRecord(d.Striper, req)
	if err != nil {
		return req, length, err
	}
	if old != nil {
		rec.Dirty = max(rec.Dirty, old.Dirty)
	}
	d.rec = rec
	switch {
	case req.Resume:
		if err := checkResumable(old, *rec, d.EOF(), req); err != nil {
			return req, length, err
		}
		req, length = resumed(d.EOF(), req, length)
		err = d.SetRecord(rec.encode())
	case !req.Ranged:
		rec.Dirty = max(rec.Dirty, d.EOF())
		err = d.Replace(rec.encode(), rec.Dirty, req.Width)
	default:
		err = d.SetRecord(rec.encode())
		if err == nil && old != nil && old.Dirty > d.EOF() && req.DstOffset > d.EOF() {
			// An interrupted copy may have written past the EOF.
			// This one publishes past it without writing the gap
			// [EOF, --dst-offset): cut back first, so the gap is a
			// hole, zeros, and not the other copy's unpublished
			// bytes. The record, stored first, keeps its dirty
			// mark while this runs.
			err = d.TrimPast(old.Dirty)
		}
	}
	if err != nil {
		return req, length, fmt.Errorf("destination %s: %w", req.Dst, err)
	}
	return req, length, nil
}

// finish checks striper.size, read afresh from the OSD, is end (a
// different one means another writer ignored the lock), cuts back
// whatever an earlier interrupted copy wrote past end, and removes the
// record.
func (d *stripedDestination) finish(req Request, end uint64) error {
	if d.rec == nil {
		return nil
	}
	size, err := d.StoredSize()
	if err != nil {
		return fmt.Errorf("reading back striper.size of %s: %w", req.Dst, err)
	}
	if size != end {
		return fmt.Errorf("%s: striper.size reads %d after the copy, expected %d: another writer changed the destination during the copy", req.Dst, size, end)
	}
	if d.rec.Dirty > end {
		if err := d.TrimPast(d.rec.Dirty); err != nil {
			return fmt.Errorf("%s: removing what an interrupted copy left past EOF %d: %w", req.Dst, end, err)
		}
	}
	if err := d.ClearRecord(); err != nil {
		return fmt.Errorf("%s: removing the record of the copy: %w", req.Dst, err)
	}
	return nil
}
