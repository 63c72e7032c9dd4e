package cli

import (
	"errors"
	"fmt"
)

// Exit codes both binaries share, for scripts and scheduled jobs.
const (
	ExitOK     = 0 // everything done
	ExitFailed = 1 // failed with nothing copied
	ExitUsage  = 2 // invalid input, found before anything was written
)

// UsageError marks an error in what the user asked for (exit 2).
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Usage is a formatted message (%w wraps) marked as invalid input.
func Usage(format string, args ...any) error {
	return UsageError{fmt.Errorf(format, args...)}
}

// ExitCode classifies err as the binaries share it: nil is ExitOK,
// invalid input ExitUsage, anything else ExitFailed. A binary with more
// outcomes checks its own first.
func ExitCode(err error) int {
	var u UsageError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &u):
		return ExitUsage
	default:
		return ExitFailed
	}
}
