package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/radoscp/radoscp"
)

// jsonSchemaVersion is the version of every line --json prints; it
// changes when a field is removed or changes meaning (new fields do not
// change it). docs/json.md describes each version.
const jsonSchemaVersion = 1

// reportedError is a failure whose result line --json has printed.
type reportedError struct{ err error }

func (e reportedError) Error() string { return e.err.Error() }
func (e reportedError) Unwrap() error { return e.err }

// reported marks err as printed in the result line.
func reported(err error) error {
	if err == nil {
		return nil
	}
	return reportedError{err}
}

// wantJSON says whether the run asked for --json: in its configuration,
// or, when cobra failed before it was loaded, on its command line.
func wantJSON(configured bool, args []string) bool {
	if configured {
		return true
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--json" || a == "--json=true" {
			return true
		}
	}
	return false
}

// printFailureJSON prints the one line of a run that failed before any
// result line: the shape the run would have printed (a copy's result, or
// a CephFS summary), with the error, its errno and the exit code. A
// failure already in a result line prints nothing more.
func printFailureJSON(w io.Writer, args []string, configured bool, err error) {
	var r reportedError
	if err == nil || errors.As(err, &r) || !wantJSON(configured, args) {
		return
	}
	code := exitCode(err)
	var line any
	if len(args) > 0 && args[0] == "verify" {
		msg := plainWords(err.Error())
		line = jsonVerified{SchemaVersion: jsonSchemaVersion, Differences: []string{}, Error: &msg, ExitCode: &code}
	} else if summaryShaped(args) {
		j := jsonSummary{SchemaVersion: jsonSchemaVersion, Summary: true, ExitCode: &code}
		msg := plainWords(err.Error())
		j.Error, j.Errno = &msg, int(toJSON(radoscp.Result{}, err).Errno)
		line = j
	} else {
		j := toJSON(radoscp.Result{}, err)
		j.ExitCode = &code
		line = j
	}
	b, _ := json.Marshal(line)
	fmt.Fprintln(w, string(b))
}

// summaryShaped says whether the run is a CephFS one, whose last line is
// a summary.
func summaryShaped(args []string) bool {
	for i, a := range args {
		if i == 0 && (a == "migrate" || a == "subvolume") || strings.HasPrefix(a, "cephfs:") {
			return true
		}
	}
	return false
}
