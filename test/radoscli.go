package test

import (
	"bytes"
	"errors"
	"os/exec"
	"syscall"
)

// RadosCLI runs the rados CLI with -c conf and args and returns its
// combined output. Ceph 16's rados CLI sometimes aborts while shutting
// down after --striper commands ("Resource deadlock avoided" from its
// io_context_pool thread, seen in CI); such a run is retried once, since
// every use in the tests (put, get, stat, ls, rm of a missing name) can
// be repeated.
func RadosCLI(conf string, args ...string) ([]byte, error) {
	out, err := runRados(conf, args)
	if abortedAtShutdown(out, err) {
		out, err = runRados(conf, args)
	}
	return out, err
}

func runRados(conf string, args []string) ([]byte, error) {
	return exec.Command("rados", append([]string{"-c", conf}, args...)...).CombinedOutput()
}

func abortedAtShutdown(out []byte, err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGABRT &&
		bytes.Contains(out, []byte("Resource deadlock avoided"))
}
