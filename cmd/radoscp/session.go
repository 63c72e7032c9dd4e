package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/metrics"
	"github.com/radoscp/radoscp/verify"
	"golang.org/x/sys/unix"
)

// session is what one command run shares: metrics (served and written at
// the end), the logger, and the progress display.
type session struct {
	inv      *invocation
	cfg      config.Config
	metrics  *metrics.Metrics
	stopHTTP func(context.Context) error
	log      *slog.Logger
	prog     *progress
}

func newSession(inv *invocation, cfg config.Config) (*session, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		return nil, fmt.Errorf("--log-level %q: expected debug, info, warn or error", cfg.LogLevel)
	}
	switch {
	case cfg.Quiet && cfg.Verbose:
		return nil, fmt.Errorf("--quiet and --verbose contradict each other: give one")
	case cfg.Quiet:
		level, cfg.Progress = slog.LevelError, "off"
	case cfg.Verbose && cfg.LogLevel == "warn":
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(inv.stderr, opts)
	if cfg.LogFormat == "json" {
		h = slog.NewJSONHandler(inv.stderr, opts)
	}
	s := &session{inv: inv, cfg: cfg, metrics: metrics.New(), log: slog.New(h)}
	inv.job.session = s
	if cfg.MetricsAddr != "" {
		stop, _, err := s.metrics.Serve(cfg.MetricsAddr)
		if err != nil {
			return nil, fmt.Errorf("--metrics-addr: %w", err)
		}
		s.stopHTTP = stop
	}
	return s, nil
}

// observer is what the engine reports to: metrics and progress.
func (s *session) observer() radoscp.Observer {
	s.prog = &progress{inFlight: &s.inv.inFlight}
	return tee{s.metrics, s.prog}
}

// finish writes the textfile, once a copy is over (a batch's after each
// copy); main writes it again with the run's outcome when it exits.
func (s *session) finish() {
	if s.cfg.MetricsTextfile != "" {
		s.inv.job.finishCopy(s)
	}
}

func (s *session) close() {
	if s.stopHTTP != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = s.stopHTTP(ctx)
	}
}

// progress starts the display of one copy, counting from 0, if it is
// wanted: by default only when stderr, where it is drawn, is a terminal
// (so 2>log gets no frames).
func (s *session) progress(total uint64) *progressDisplay {
	s.prog.reset()
	on := false
	switch s.cfg.Progress {
	case "on":
		on = true
	case "auto":
		on = isTerminal(os.Stderr)
	}
	return startProgress(s.inv.stderr, s.prog, total, on)
}

// fileProgress starts the display of a CephFS copy, which counts files.
func (s *session) fileProgress() *fileProgress {
	s.prog.perFile = true
	return &fileProgress{p: s.prog, d: s.progress(0)}
}

// fileProgress counts finished files for the display, and the tree's
// total alongside the copy.
type fileProgress struct {
	p        *progress
	d        *progressDisplay
	stop     context.CancelFunc
	counting chan struct{} // closed when the count has ended; nil if none ran
}

// count counts the tree under src (fscopy.Copier.Count) while the copy
// runs, if the display is shown. The count ends with the display.
func (f *fileProgress) count(ctx context.Context, c *fscopy.Copier, src string) {
	if !f.d.on {
		return
	}
	f.counting = make(chan struct{})
	ctx, f.stop = context.WithCancel(ctx)
	go func() {
		defer close(f.counting)
		if c.Count(ctx, src, func(size uint64) {
			f.p.tree.bytes.Add(size)
			f.p.tree.files.Add(1)
		}) == nil {
			f.p.tree.counted.Store(true)
		}
	}()
}

func (f *fileProgress) file(r fscopy.Report) {
	if r.Outcome == fscopy.Interrupted {
		return // not done: the last frame shows the bytes it copied, not its size
	}
	if r.Symlink {
		return // the count is of regular files
	}
	if r.Outcome == fscopy.Copied {
		f.p.files.Add(1)
	}
	// A regular file is done whatever its outcome (a hard link's data
	// is counted once, with its first path). Skipped and failed reports
	// carry a size only for regular files.
	switch {
	case r.Outcome == fscopy.Copied, r.Outcome == fscopy.Unchanged, r.Size > 0:
		f.p.tree.done.Add(1)
		if r.DryRun { // it copies no bytes (its Result says what it would): its files count as passed
			f.p.tree.passed.Add(r.Size)
		} else if r.Outcome != fscopy.Copied {
			f.p.tree.passed.Add(r.Size - min(r.Result.Bytes, r.Size))
		}
	}
}

// finish ends the count, if it still runs (it reads the mount, which is
// unmounted next), and the display.
func (f *fileProgress) finish() {
	if f.counting != nil {
		f.stop()
		<-f.counting
	}
	f.d.finish()
}

// isTerminal says whether f is a terminal (not merely a character
// device: 2>/dev/null is not a terminal).
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

var _ radoscp.Observer = (*metrics.Metrics)(nil)

// tee sends every observation to several observers.
type tee []radoscp.Observer

func (t tee) CopyDone(l time.Duration, b uint64, err error) {
	for _, o := range t {
		o.CopyDone(l, b, err)
	}
}
func (t tee) InFlight(d int) {
	for _, o := range t {
		o.InFlight(d)
	}
}
func (t tee) Window(n int) {
	for _, o := range t {
		o.Window(n)
	}
}
func (t tee) Fallback() {
	for _, o := range t {
		o.Fallback()
	}
}
func (t tee) ClientIO(r, w uint64) {
	for _, o := range t {
		o.ClientIO(r, w)
	}
}
func (t tee) CutBack() {
	for _, o := range t {
		o.CutBack()
	}
}
func (t tee) Progress(b uint64) {
	for _, o := range t {
		o.Progress(b)
	}
}

// verified counts a copy's verification, if it was verified.
func (s *session) verified(v *verify.Result) {
	if v != nil {
		s.metrics.Verified(v.Objects, v.Bytes, len(v.Differences))
	}
}
