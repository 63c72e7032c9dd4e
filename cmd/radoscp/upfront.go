package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/radoscp/radoscp/store"
)

// Checks of the run's surroundings made before connecting, so that a
// mistake in them is invalid input (exit 2), not a failure found at the
// end.

// checkTextfileDir refuses a --metrics-textfile whose directory does not
// exist or is not writable: the file is written when the run ends, and a
// scheduled job should not learn only then that it has no metrics.
func checkTextfileDir(path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return usage("--metrics-textfile %s: directory %s: %v", path, dir, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return usage("--metrics-textfile %s: %s is not a directory", path, dir)
	}
	probe, err := os.CreateTemp(dir, ".radoscp-probe-*")
	if err != nil {
		return usage("--metrics-textfile %s: cannot write in %s: %v", path, dir, errors.Unwrap(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// missingFS makes a mount of a file system that does not exist invalid
// input.
func missingFS(name string, err error) error {
	if errors.Is(err, store.ErrNotFound) || store.ErrnoOf(err) == 2 {
		if name == "" {
			return usage("no CephFS file system found (ceph fs ls lists them): %w", err)
		}
		return usage("file system %q does not exist (ceph fs ls lists them): %w", name, err)
	}
	return err
}

// afterCopies is the error of a batch that stopped after done copies
// completed: a partial run (exit 3) whatever stopped it.
func afterCopies(err error, done int) error {
	if err == nil || done == 0 {
		return err
	}
	return partialError{fmt.Errorf("after %s: %w", plural(done, "completed copy", "completed copies"), err)}
}
