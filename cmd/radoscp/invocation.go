package main

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp/cmd/internal/cli"
)

// invocation is one run of radoscp: what its commands share, made by main
// and handed to them in the command's context.
type invocation struct {
	// stderr is where messages go, below the progress display.
	stderr *statusLine
	// job is the run, for the metrics textfile.
	job *job
	// json is the --json setting of the configuration, once loaded.
	json bool
	// inFlight is the number of copy operations in flight, for the
	// message of an interrupt; every copy's observer moves it.
	inFlight atomic.Int64
	// connecting is set while radoscp waits for a monitor, when nothing
	// has been written and an interrupt can exit at once.
	connecting atomic.Bool
	// connector connects, warning of an open keyring once per run.
	connector *cli.Connector
	// started is set when a command's own code begins, so errors cobra
	// raises before that are classified as usage errors.
	started bool
}

func newInvocation() *invocation {
	stderr := &statusLine{}
	return &invocation{stderr: stderr, job: &job{start: time.Now()},
		connector: &cli.Connector{Program: "radoscp", Warnings: stderr}}
}

// start marks cmd's own code as begun: its errors are its own, not
// cobra's.
func start(cmd *cobra.Command) { invocationOf(cmd).started = true }

type invocationKey struct{}

// withInvocation is ctx carrying inv, for cobra to hand to every command.
func withInvocation(ctx context.Context, inv *invocation) context.Context {
	return context.WithValue(ctx, invocationKey{}, inv)
}

// invocationOf is the run cmd belongs to.
func invocationOf(cmd *cobra.Command) *invocation {
	if ctx := cmd.Context(); ctx != nil {
		if inv, ok := ctx.Value(invocationKey{}).(*invocation); ok {
			return inv
		}
	}
	panic("radoscp: command " + cmd.Name() + " run without an invocation")
}
