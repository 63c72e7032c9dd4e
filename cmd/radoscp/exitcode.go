package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/cmd/internal/cli"
	"github.com/radoscp/radoscp/names"
	"github.com/radoscp/radoscp/objcopy"
)

// Exit codes, for scripts and scheduled jobs.
const (
	exitOK      = cli.ExitOK     // everything copied
	exitFailed  = cli.ExitFailed // failed with nothing copied
	exitUsage   = cli.ExitUsage  // invalid input, found before anything was written
	exitPartial = 3              // a prefix was copied and published, then a failure
	// exitDeleteLimit: a tree copy complete, its --delete stopped by
	// --max-delete (rsync's 25): the target holds more than the source.
	exitDeleteLimit = 4
)

// usageError marks an error in what the user asked for.
type usageError = cli.UsageError

// usage wraps err (or a formatted message) as invalid input.
func usage(format string, args ...any) error { return cli.Usage(format, args...) }

// partialError is a failure after some bytes were copied and published.
type partialError struct{ err error }

func (e partialError) Error() string { return e.err.Error() }
func (e partialError) Unwrap() error { return e.err }

// exitCode classifies err; the one place errors become exit codes.
func exitCode(err error) int {
	var u usageError
	var p partialError
	var d deleteLimitError
	var ou *objcopy.InvalidError
	var op *objcopy.PartialError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &d):
		return exitDeleteLimit
	case errors.As(err, &p), errors.As(err, &op):
		// Checked first: invalid input found after some copies (a bad
		// --batch line) is still a partial run.
		return exitPartial
	case errors.As(err, &u), errors.As(err, &ou):
		return exitUsage
	default:
		return exitFailed
	}
}

// report prints err as one line on w: joined errors (a failure, then a
// failed cut-back) are separated by "; ". The libraries' typed errors are
// named by the flags that caused them.
func report(w io.Writer, err error) {
	if err != nil {
		msg := plainWords(strings.ReplaceAll(flagWords(err), "\n", "; "))
		if h := spaceHint(err); h != "" {
			msg += "; " + h
		}
		fmt.Fprintln(w, "radoscp:", names.Escape(msg))
	}
}

// flagWords is err's message with library terms turned into the flags an
// operator set: the libraries name options, the command names flags.
func flagWords(err error) string {
	msg := err.Error()
	if errors.Is(err, radoscp.ErrOffloadOnly) {
		msg = strings.Replace(msg, radoscp.ErrOffloadOnly.Error(), "--offload-only is set", 1)
	}
	return libraryTerms.Replace(msg)
}

// libraryTerms are the libraries' words for what flags set.
var libraryTerms = strings.NewReplacer(
	"; a resume continues)", "; --resume continues)",
	"(a resume would continue it)", "(--resume would continue it)",
	"(verify through the client instead)", "(verify through the client instead: --verify=client)",
	"check the client name and its keyring", "check --id/--name and --keyring",
	"keyring or key not found; check the keyring", "keyring or key not found; check --keyring",
	"invalid client name ", "invalid --name ",
	"sync \"", "--sync \"",
	"verify mode \"", "--verify \"",
	"no-clobber leaves", "--no-clobber leaves",
)
