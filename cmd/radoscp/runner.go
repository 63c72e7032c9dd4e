package main

import (
	"context"
	"fmt"
	"io"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/names"
	"github.com/radoscp/radoscp/objcopy"
	"github.com/radoscp/radoscp/rados"
)

// runner is one connection and everything copies over it share: the
// engine (which remembers for the connection's life whether copy-from
// works), the object copier over it, metrics and logging.
type runner struct {
	conn    *rados.Conn
	session *session
	engine  *radoscp.Engine
	objects *objcopy.Copier
}

func newRunner(inv *invocation, cfg config.Config) (*runner, error) {
	return newRunnerWith(inv, cfg, nil)
}

// newRunnerWith connects with extra librados options.
func newRunnerWith(inv *invocation, cfg config.Config, options map[string]string) (*runner, error) {
	conn, err := connectWith(inv, cfg, options)
	if err != nil {
		return nil, err
	}
	session, err := newSession(inv, cfg)
	if err != nil {
		conn.Close()
		return nil, usageError{Err: err}
	}
	engine := radoscp.NewEngine(session.observer(), session.log)
	started := func(length uint64) func() { return session.progress(length).finish }
	return &runner{conn: conn, session: session, engine: engine,
		objects: objcopy.New(engine, connPools{conn}, started)}, nil
}

func (r *runner) close() {
	r.session.close()
	r.conn.Close()
}

// copy copies req, a rados: or striper: copy, with cfg's settings, and
// prints what it did on out (warnings and differences on errw).
func (r *runner) copy(ctx context.Context, out, errw io.Writer, cfg config.Config, req cpRequest) error {
	o, err := r.objects.Copy(ctx, objectRequest(cfg, req))
	if h := o.TookOver; h != nil {
		fmt.Fprintf(errw, "radoscp: %s: took over the lock of a copy that is gone (%s)\n", names.Quote(req.dst.String()), h)
	}
	defer warnClose(errw, req.dst, o.CloseErr)
	switch {
	case o.DryRun != "":
		printObjectDryRun(out, cfg.JSON, req, o)
		return nil
	case !o.Ran:
		return err // refused, or failed before anything was written
	}
	if v := o.Verified; v != nil {
		r.session.metrics.Verified(v.Objects, v.Bytes, len(v.Differences))
		if err != nil {
			for _, d := range v.Differences {
				fmt.Fprintf(errw, "radoscp: differs: %s -> %s: %s\n", names.Quote(req.src.String()), names.Quote(req.dst.String()), d)
			}
		}
	}
	r.session.finish()
	printResultVerified(out, cfg.JSON, req, o.Result, o.Verified, err)
	return reported(err)
}

// objectRequest is req with what cfg asks of every copy.
func objectRequest(cfg config.Config, req cpRequest) objcopy.Request {
	return objcopy.Request{Src: req.src, Dst: req.dst, SrcOffset: req.srcOff, DstOffset: req.dstOff,
		Length: req.length, HaveLength: req.haveLength, DstSize: req.dstSize,
		Resume: req.resume, NoClobber: req.noClobber, DryRun: req.dryRun, Snap: req.snap, Ranged: req.ranged, Verify: req.verify,
		Layout:       cfgLayout(cfg),
		AllowMissing: cfg.AllowMissing, Options: copyOptions(cfg), Width: statWidth(cfg), VerifyWindow: windowOf(cfg)}
}

// statWidth is how many metadata operations (stats, removes) run at once
// around a copy: the window, but at least 16 and at most 64 (they are
// small operations).
func statWidth(cfg config.Config) int {
	return min(max(cfg.Window, 16), 64)
}

// copyOptions is what the configuration asks of every copy.
// A throttle (--max-rate, --max-ops) is made here, once per call: a tree
// copy or migrate shares it among all its files.
func copyOptions(cfg config.Config) radoscp.Options {
	return radoscp.Options{Window: cfg.Window, Auto: cfg.AutoWindow, MaxWindow: cfg.MaxWindow,
		Chunk: cfg.Chunk, OffloadOnly: cfg.OffloadOnly, PinSource: cfg.PinSource,
		Throttle: radoscp.NewThrottle(float64(cfg.MaxRate), float64(cfg.MaxOps), nil)}
}

// connectWith connects with extra librados options, marking the wait for
// a monitor.
func connectWith(inv *invocation, cfg config.Config, options map[string]string) (*rados.Conn, error) {
	defer inv.waitingForMonitor(inv.stderr, cfg)()
	return inv.connector.Connect(cfg, options)
}

// flagLayout is the layout given by --object-size, --stripe-unit and
// --stripe-count, for raw object sets and new striped objects, validated.
func flagLayout(cfg config.Config) (layout.Layout, error) {
	return objcopy.ValidLayout(cfgLayout(cfg))
}

func cfgLayout(cfg config.Config) layout.Layout {
	return layout.Layout{StripeUnit: cfg.StripeUnit, StripeCount: cfg.StripeCount, ObjectSize: cfg.ObjectSize}
}
