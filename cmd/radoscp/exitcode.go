package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Exit codes, for scripts and scheduled jobs.
const (
	exitOK      = 0 // everything copied
	exitFailed  = 1 // failed with nothing copied
	exitUsage   = 2 // invalid input, found before anything was written
	exitPartial = 3 // a prefix was copied and published, then a failure
)

// usageError marks an error in what the user asked for.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usage wraps err (or a formatted message) as invalid input.
func usage(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// partialError is a failure after some bytes were copied and published.
type partialError struct{ err error }

func (e partialError) Error() string { return e.err.Error() }
func (e partialError) Unwrap() error { return e.err }

// exitCode classifies err; the one place errors become exit codes.
func exitCode(err error) int {
	var u usageError
	var p partialError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &u):
		return exitUsage
	case errors.As(err, &p):
		return exitPartial
	default:
		return exitFailed
	}
}

// report prints err as one line on w: joined errors (a failure, then a
// failed cut-back) are separated by "; ".
func report(w io.Writer, err error) {
	if err != nil {
		fmt.Fprintln(w, "radoscp:", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
}
