package verify

import (
	"context"
	"errors"
	"fmt"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/store"
)

// Mode is how a copy is verified.
type Mode string

const (
	Off    Mode = "off"
	OSD    Mode = "osd"    // checksums computed by the OSDs (Compare)
	Client Mode = "client" // every byte read through the client (CompareClient)
)

// ParseMode reads a --verify value: true or osd, client, false or off.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "true", "osd":
		return OSD, nil
	case "client":
		return Client, nil
	case "false", "off", "":
		return Off, nil
	}
	return "", fmt.Errorf("verify mode %q: expected true (checksums on the OSDs), client (read through the client) or false", s)
}

// ErrCannotVerify is a verification by OSD checksums that could not be
// done (layouts differ, or the OSDs lack the checksum op): nothing was
// compared, which is never reported as verified.
var ErrCannotVerify = errors.New("cannot verify by OSD checksums")

// Check verifies dst against src the way m says. With OSD, a comparison
// that checksums cannot make fails with ErrCannotVerify instead of falling
// back silently: reading everything through the client is what
// verification by checksums exists to avoid, and is done only when asked
// for (Client).
func Check(ctx context.Context, m Mode, src, dst radoscp.Source, width int) (Result, error) {
	switch m {
	case Client:
		return CompareClient(ctx, src, dst, width)
	case OSD:
		res, err := Compare(ctx, src, dst, width)
		if errors.Is(err, ErrLayouts) || errors.Is(err, store.ErrNotSupported) {
			return res, fmt.Errorf("%w: %w (verify through the client instead)", ErrCannotVerify, err)
		}
		return res, err
	}
	return Result{}, nil
}
