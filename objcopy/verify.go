package objcopy

import (
	"errors"
	"fmt"

	"github.com/radoscp/radoscp/verify"
)

// ErrDiffers is the error of a verification that found differences.
var ErrDiffers = errors.New("the destination differs from the source")

// VerifyError is the error of a verification that ended with res and
// err: err, or ErrDiffers counting the differences, or nil.
func VerifyError(res verify.Result, err error) error {
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if !res.Same() {
		return fmt.Errorf("%w: differences: %d", ErrDiffers, len(res.Differences))
	}
	return nil
}
