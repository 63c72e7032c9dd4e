package test

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"syscall"
)

// RadosCLI runs the rados CLI with -c conf and args and returns its
// standard output; a failure's error holds its standard error. Standard
// error is kept out of the output because the CLI's libraries log there
// whenever they like (a monclient's "handle_auth_reply_more no
// authorizer?", seen in CI between two identical listings).
//
// Ceph 16's rados CLI sometimes dies while shutting down after --striper
// commands ("Resource deadlock avoided" from its io_context_pool thread,
// or a segmentation fault in Rados::shutdown, both seen in CI); such a run
// is retried once, since every use in the tests (put, get, stat, ls, rm
// of a missing name) can be repeated.
func RadosCLI(conf string, args ...string) ([]byte, error) {
	out, stderr, err := runRados(conf, args)
	if abortedAtShutdown(stderr, err) {
		out, stderr, err = runRados(conf, args)
	}
	if err != nil {
		return out, fmt.Errorf("%w: %s", err, bytes.TrimSpace(stderr))
	}
	return out, nil
}

func runRados(conf string, args []string) (stdout, stderr []byte, err error) {
	var o, e bytes.Buffer
	cmd := exec.Command("rados", append([]string{"-c", conf}, args...)...)
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.Bytes(), e.Bytes(), err
}

// abortedAtShutdown tells a run killed at shutdown by a known Ceph 16
// fault from its standard error.
func abortedAtShutdown(stderr []byte, err error) bool {
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
		return bytes.Contains(stderr, []byte("Resource deadlock avoided"))
	case syscall.SIGSEGV:
		// Its messenger's stop reading a config option while the
		// striper's Rados is destroyed (seen in CI: a backtrace through
		// Rados::shutdown, AsyncConnection::_stop, md_config_t).
		return bytes.Contains(stderr, []byte("Rados::shutdown()"))
	}
	return false
}
