package objcopy

import (
	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/address"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/truncate"
	"github.com/radoscp/radoscp/verify"
)

// Request is one copy between rados: and striper: addresses. The zero
// values of the optional fields ask for a whole copy of the source at its
// head into a destination that is replaced.
type Request struct {
	Src, Dst             address.Address
	SrcOffset, DstOffset uint64
	// Length is the bytes to copy when HaveLength; otherwise the copy runs
	// to the source's EOF (a raw object set has none: give Length).
	Length     uint64
	HaveLength bool
	// DstSize is the current EOF of a raw destination, which records none.
	DstSize uint64
	// Resume continues an interrupted copy into a striped destination from
	// its published EOF; NoClobber refuses a destination that exists;
	// DryRun says what the copy would do and writes nothing.
	Resume, NoClobber, DryRun bool
	// Snap is the pool snapshot of the source's pool to copy ("": head).
	Snap string
	// Ranged is a range copy (copy_file_range semantics: into the data
	// that is there) rather than a whole copy, which replaces the
	// destination.
	Ranged bool
	// Verify checks a whole copy against its source when it has ended.
	Verify verify.Mode

	// Layout is the layout of raw object sets and of new striped objects
	// (StripeUnit 0: the object size); it is validated before use.
	Layout layout.Layout
	// AllowMissing copies a raw source range none of whose objects exist
	// (as a hole) instead of refusing it.
	AllowMissing bool
	// Options are the engine's.
	Options radoscp.Options
	// Width is how many metadata operations (stats, removes) run at once
	// around the copy; VerifyWindow how many checksums verify keeps in
	// flight. Both at least 1.
	Width, VerifyWindow int
}

// Outcome is what a copy did, also when it failed.
type Outcome struct {
	// Ran says the destination was opened and prepared and the engine
	// ran: Result says what it did. A copy refused or failed before
	// that wrote nothing.
	Ran bool
	// Result is the engine's, or for a dry run what the copy would do.
	Result radoscp.Result
	// Length is the bytes the copy set out to copy: after --resume, what
	// was left.
	Length uint64
	// Verified is the verification of the copy, nil if none ran.
	Verified *verify.Result
	// DryRun is the action a dry run found (create, replace, write-into,
	// resume; "" for a real copy) and DryRunEOF the destination's EOF now.
	DryRun    string
	DryRunEOF uint64
	// TookOver is the copy whose expired lock this one took over, if any.
	TookOver *truncate.Holder
	// CloseErr is the failure to release the destination (a lock object
	// left behind wraps truncate.ErrLockLeft). It is not the copy's: the
	// data is in place.
	CloseErr error
}
