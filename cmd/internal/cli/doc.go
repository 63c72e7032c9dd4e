// Package cli is what radoscp's two binaries (cmd/radoscp and
// cmd/radoscp-bench) share around a command: connecting as the
// configuration says, with the checks of -c and the keyring that make a
// mistake in them invalid input, the once-per-run keyring warning, and
// the exit codes of invalid input and failure.
package cli
