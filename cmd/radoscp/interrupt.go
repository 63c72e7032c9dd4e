package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp/config"
)

// exitKilled is the exit code of a run stopped by a second interrupt,
// without waiting for its copies: the shell's code for SIGINT. What the
// destination publishes is as true as after kill -9.
const exitKilled = 130

// interruptContext is cancelled by the first SIGINT or SIGTERM: the copy
// stops submitting, waits for the operations in flight and publishes the
// complete prefix; errw says what it waits for. A second signal exits at
// once (exitKilled). Before anything is written (while connecting) the
// first signal exits at once too.
func interruptContext(cmd *cobra.Command) (context.Context, func()) {
	inv, errw := invocationOf(cmd), cmd.ErrOrStderr()
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			if inv.connecting.Load() {
				fmt.Fprintf(errw, "\nradoscp: %s while waiting for a monitor; nothing was written\n", signalName(s))
				os.Exit(exitFailed)
			}
			fmt.Fprintf(errw, "\nradoscp: %s: %s, then publishing what is complete; interrupt again to exit at once\n",
				signalName(s), inv.waitingFor())
			cancel(errInterrupted)
		case <-done:
			return
		}
		select {
		case s := <-sigs:
			fmt.Fprintf(errw, "\nradoscp: %s again: exiting without waiting, as kill -9 would; the destination's published EOF is true and --resume continues a striper: or cephfs: copy\n",
				signalName(s))
			os.Exit(exitKilled)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// errInterrupted is the cause of a context an interrupt cancelled.
var errInterrupted = fmt.Errorf("interrupted")

func signalName(s os.Signal) string {
	if s == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "interrupted (SIGINT)"
}

// waitingFor says what an interrupted copy still waits for.
func (inv *invocation) waitingFor() string {
	switch n := inv.inFlight.Load(); n {
	case 0:
		return "finishing the current step"
	case 1:
		return "waiting for 1 copy in flight"
	default:
		return fmt.Sprintf("waiting for %d copies in flight", n)
	}
}

// waitingForMonitor marks the wait for a monitor (an interrupt then exits
// at once) and, if it lasts more than a second, says on errw what radoscp
// waits for. The returned function ends the wait.
func (inv *invocation) waitingForMonitor(errw io.Writer, cfg config.Config) func() {
	inv.connecting.Store(true)
	timeout := cfg.ConnectTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	t := time.AfterFunc(time.Second, func() {
		fmt.Fprintf(errw, "radoscp: waiting for a monitor to answer (mon_host in %s), up to %s (--connect-timeout)\n", confName(cfg), timeout)
	})
	return func() {
		t.Stop()
		inv.connecting.Store(false)
	}
}

func confName(cfg config.Config) string {
	if cfg.Conf != "" {
		return cfg.Conf
	}
	if c := os.Getenv("CEPH_CONF"); c != "" {
		return c
	}
	return "/etc/ceph/ceph.conf"
}
