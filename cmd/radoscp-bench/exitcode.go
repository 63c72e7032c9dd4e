package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/radoscp/radoscp/cmd/internal/cli"
)

// Exit codes: radoscp's, less exitPartial (a benchmark publishes nothing).
const (
	exitOK     = cli.ExitOK
	exitFailed = cli.ExitFailed // a contender or the set-up failed
	exitUsage  = cli.ExitUsage  // invalid input, found before anything was written
)

// usageError marks an error in what the user asked for.
type usageError = cli.UsageError

// usage wraps a formatted message as invalid input.
func usage(format string, args ...any) error { return cli.Usage(format, args...) }

// exitCode classifies err; the one place errors become exit codes.
func exitCode(err error) int { return cli.ExitCode(err) }

// report prints err as one line on w.
func report(w io.Writer, err error) {
	if err != nil {
		fmt.Fprintln(w, "radoscp-bench:", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
}
