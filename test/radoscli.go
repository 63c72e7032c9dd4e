package test

import (
	"bytes"
	"errors"
	"os/exec"
	"syscall"
)

// RadosCLI runs the rados CLI with -c conf and args and returns its
// combined output. Ceph 16's rados CLI sometimes dies while shutting
// down after --striper commands ("Resource deadlock avoided" from its
// io_context_pool thread, or a segmentation fault in Rados::shutdown,
// both seen in CI); such a run is retried once, since
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
	if !ok || !ws.Signaled() {
		return false
	}
	switch ws.Signal() {
	case syscall.SIGABRT:
		return bytes.Contains(out, []byte("Resource deadlock avoided"))
	case syscall.SIGSEGV:
		// Its messenger's stop reading a config option while the
		// striper's Rados is destroyed (seen in CI: a backtrace through
		// Rados::shutdown, AsyncConnection::_stop, md_config_t).
		return bytes.Contains(out, []byte("Rados::shutdown()"))
	}
	return false
}
