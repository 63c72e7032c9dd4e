package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Exit codes: radoscp's, less exitPartial (a benchmark publishes nothing).
const (
	exitOK     = 0
	exitFailed = 1 // a contender or the set-up failed
	exitUsage  = 2 // invalid input, found before anything was written
)

// usageError marks an error in what the user asked for.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usage wraps a formatted message as invalid input.
func usage(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// exitCode classifies err; the one place errors become exit codes.
func exitCode(err error) int {
	var u usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &u):
		return exitUsage
	default:
		return exitFailed
	}
}

// report prints err as one line on w.
func report(w io.Writer, err error) {
	if err != nil {
		fmt.Fprintln(w, "radoscp-bench:", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
}
