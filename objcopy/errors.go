package objcopy

import (
	"context"
	"errors"
	"fmt"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/address"
	"github.com/radoscp/radoscp/truncate"
	"github.com/radoscp/radoscp/verify"
)

// InvalidError is a request refused before anything was written: bad
// input, a destination that exists with NoClobber, a --resume that cannot
// continue.
type InvalidError struct{ Err error }

func (e *InvalidError) Error() string { return e.Err.Error() }
func (e *InvalidError) Unwrap() error { return e.Err }

// PartialError is a failure after a prefix of the copy was copied and
// published.
type PartialError struct{ Err error }

func (e *PartialError) Error() string { return e.Err.Error() }
func (e *PartialError) Unwrap() error { return e.Err }

func invalid(err error) error { return &InvalidError{err} }

// usage is a formatted InvalidError.
func usage(format string, args ...any) error {
	return &InvalidError{fmt.Errorf(format, args...)}
}

// classify types a copy's end: what was published decides between a
// partial copy and a failure. req and length are the copy as it ran
// (moved forward by --resume), eofBefore the destination's EOF before it.
func classify(res radoscp.Result, checked *verify.Result, cerr error, req Request, length, eofBefore uint64) error {
	if checked != nil && cerr != nil {
		return cerr // copied, and found different: a failure
	}
	switch {
	case cerr == nil:
		return nil
	case errors.Is(cerr, truncate.ErrLockLost):
		// Not partial: another copy may have written the destination
		// since, so what this one published no longer says anything.
		return fmt.Errorf("stopped after %d of %d bytes: %w. What this copy published (EOF %d) holds only if no other copy has written the destination since; nothing was cut back, and --resume would continue from a record another copy may have replaced: check the destination, then copy again",
			res.Bytes, length, cerr, res.PublishedEOF)
	case res.Bytes > 0 && res.PublishedEOF >= req.DstOffset+res.Bytes:
		return &PartialError{fmt.Errorf("copied %d of %d bytes, then: %w", res.Bytes, length, cerr)}
	case res.Bytes > 0 && res.PublishedEOF > max(eofBefore, req.DstOffset):
		// A checkpoint published part of the prefix, the final
		// publish failed.
		return &PartialError{fmt.Errorf("copied %d of %d bytes, published up to EOF %d, then: %w", res.Bytes, length, res.PublishedEOF, cerr)}
	case res.Bytes > 0:
		// The prefix is in place but its EOF could not be published:
		// as far as any reader knows, nothing was copied.
		return fmt.Errorf("copied %d of %d bytes but could not publish them (EOF stays %d): %w", res.Bytes, length, res.PublishedEOF, cerr)
	default:
		return cerr
	}
}

// isInterrupt says whether err is a cancelled context's.
func isInterrupt(err error) bool { return errors.Is(err, context.Canceled) }

// interrupted is the error of a copy its context stopped: what it
// copied of length, and the command that continues orig (the request as
// given, which --resume needs unchanged).
func interrupted(orig Request, res radoscp.Result, length uint64) error {
	if res.Bytes == 0 {
		return errors.New("interrupted before anything was copied")
	}
	rest := length - res.Bytes
	var cont string
	switch orig.Dst.Scheme {
	case address.Rados:
		// A raw object set records no EOF: the rest is a range copy
		// past what is published (a raw copy is never resumed, so
		// orig's range is the one that ran).
		cont = fmt.Sprintf("radoscp cp%s --src-offset %d --dst-offset %d --dst-size %d --length %d %s %s",
			layoutFlags(orig), orig.SrcOffset+res.Bytes, orig.DstOffset+res.Bytes, res.PublishedEOF, rest, orig.Src, orig.Dst)
	default:
		cont = fmt.Sprintf("radoscp cp --resume%s %s %s", rangeFlags(orig), orig.Src, orig.Dst)
	}
	return fmt.Errorf("interrupted with %d bytes left to copy; continue with: %s", rest, cont)
}

// layoutFlags repeats the layout flags of a raw object set, which has no
// layout of its own.
func layoutFlags(req Request) string {
	l := req.Layout
	s := fmt.Sprintf(" --object-size %d", l.ObjectSize)
	if l.StripeCount > 1 {
		s += fmt.Sprintf(" --stripe-unit %d --stripe-count %d", l.StripeUnit, l.StripeCount)
	}
	return s
}

// rangeFlags repeats the range of a range copy, which --resume needs
// unchanged.
func rangeFlags(req Request) string {
	var s string
	if req.SrcOffset != 0 {
		s += fmt.Sprintf(" --src-offset %d", req.SrcOffset)
	}
	if req.DstOffset != 0 {
		s += fmt.Sprintf(" --dst-offset %d", req.DstOffset)
	}
	if req.HaveLength {
		s += fmt.Sprintf(" --length %d", req.Length)
	}
	return s
}
