package main

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/radoscp/radoscp"
)

// progress counts what the engine reports, for the display.
type progress struct {
	radoscp.NopObserver
	bytes   atomic.Uint64
	objects atomic.Uint64
	files   atomic.Uint64 // CephFS copies: files copied
	perFile bool          // a CephFS copy: files, and the tree's counted total
	tree    treeCount
	// earlier is what the copies before this one (a --batch's) copied,
	// for the run's totals.
	earlier struct{ bytes, files atomic.Uint64 }
	// inFlight, when set, follows the operations in flight (for an
	// interrupt's message).
	inFlight *atomic.Int64
}

// treeCount is what the display knows of a CephFS copy's tree: the total
// counted so far (fscopy.Copier.Count, which runs alongside the copy),
// and the files done, copied or not. passed is the bytes of files done
// without being copied (unchanged, skipped, the rest of a failed one):
// they count towards the total but not towards the rate.
type treeCount struct {
	bytes, files atomic.Uint64 // counted
	counted      atomic.Bool   // the count is complete
	done         atomic.Uint64 // files done
	passed       atomic.Uint64
}

func (p *progress) Progress(n uint64) { p.bytes.Add(n) }
func (p *progress) InFlight(d int) {
	if p.inFlight != nil {
		p.inFlight.Add(int64(d))
	}
}

// reset zeroes the counts: each copy of a --batch is shown from 0 of its
// own total.
func (p *progress) reset() {
	p.earlier.bytes.Add(p.bytes.Swap(0))
	p.objects.Store(0)
	p.earlier.files.Add(p.files.Swap(0))
	p.tree.bytes.Store(0)
	p.tree.files.Store(0)
	p.tree.counted.Store(false)
	p.tree.done.Store(0)
	p.tree.passed.Store(0)
}

// runTotals is what the run copied: every copy of a --batch.
func (p *progress) runTotals() (bytes, files uint64) {
	return p.earlier.bytes.Load() + p.bytes.Load(), p.earlier.files.Load() + p.files.Load()
}

func (p *progress) CopyDone(_ time.Duration, _ uint64, err error) {
	if err == nil {
		p.objects.Add(1)
	}
}

// statusLine is stderr with one status line at its bottom: every other
// message written through it first clears the line, and the line is
// redrawn at the next tick, so warnings and log lines are never printed
// into the middle of it.
type statusLine struct {
	mu    sync.Mutex
	shown bool // a status line is on the screen
}

func (s *statusLine) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shown {
		os.Stderr.WriteString("\r\033[K")
		s.shown = false
	}
	return os.Stderr.Write(b)
}

// draw replaces the status line with line, cut to the terminal's width
// so that it never wraps.
func (s *statusLine) draw(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w := termWidth(); len(line) > w-1 {
		line = line[:max(w-1, 0)]
	}
	os.Stderr.WriteString("\r\033[K" + line)
	s.shown = true
}

// end leaves the last status line on the screen, followed by a newline.
func (s *statusLine) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shown {
		os.Stderr.WriteString("\n")
		s.shown = false
	}
}

// termWidth is stderr's terminal width, or 80.
func termWidth() int {
	ws, err := unix.IoctlGetWinsize(int(os.Stderr.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 {
		return 80
	}
	return int(ws.Col)
}

// progressDisplay redraws the status line until finished.
type progressDisplay struct {
	stop chan struct{}
	done chan struct{}
	on   bool
}

func startProgress(line *statusLine, p *progress, total uint64, on bool) *progressDisplay {
	d := &progressDisplay{stop: make(chan struct{}), done: make(chan struct{}), on: on}
	if !on {
		close(d.done)
		return d
	}
	r := &rateMeter{start: time.Now()}
	go func() {
		defer close(d.done)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-d.stop:
				r.final = true
				line.draw(progressLine(p, total, r, time.Now(), termWidth()))
				line.end()
				return
			case <-t.C:
				line.draw(progressLine(p, total, r, time.Now(), termWidth()))
			}
		}
	}()
	return d
}

// rateMeter is the copy rate over the last few seconds, so that the ETA
// follows the current rate rather than the slow start. It takes the
// clock's readings as arguments, so tests drive it with their own.
type rateMeter struct {
	times []time.Time
	bytes []uint64
	first time.Time // the first sample that saw bytes done
	// start is when the copy began, and final marks the last frame,
	// whose rate is over the whole copy (the last seconds' rate of a
	// copy that ended may be nothing, or a burst of completions).
	start time.Time
	final bool
}

const (
	rateSpan = 5 * time.Second
	// etaAfter is how long bytes must have been moving before an ETA is
	// shown: the first seconds (the window growing, the first
	// completions arriving together) say little of the rate to come.
	etaAfter = 3 * time.Second
)

// steady reports whether the rate has been measured long enough to
// found an ETA on.
func (r *rateMeter) steady(now time.Time) bool {
	return !r.first.IsZero() && now.Sub(r.first) >= etaAfter
}

func (r *rateMeter) rate(now time.Time, done uint64) float64 {
	if r.final {
		if dt := now.Sub(r.start).Seconds(); dt > 0 && !r.start.IsZero() {
			return float64(done) / dt
		}
	}
	if done > 0 && r.first.IsZero() {
		r.first = now
	}
	r.times, r.bytes = append(r.times, now), append(r.bytes, done)
	// Over the last rateSpan, but no more than the later half of the
	// time bytes have moved: the start of a copy (the window growing, the
	// first completions arriving together) is slower than what follows,
	// and would make the first ETAs far too long.
	span := rateSpan
	if !r.first.IsZero() {
		span = min(span, now.Sub(r.first)/2)
	}
	for len(r.times) > 2 && now.Sub(r.times[1]) >= span {
		r.times, r.bytes = r.times[1:], r.bytes[1:]
	}
	dt := now.Sub(r.times[0]).Seconds()
	if dt <= 0 {
		return 0
	}
	return float64(done-r.bytes[0]) / dt
}

// progressLine is the status line, at most width-1 columns: the bar
// takes what the numbers leave.
func progressLine(p *progress, total uint64, r *rateMeter, now time.Time, width int) string {
	if p.perFile {
		return treeLine(p, r, now, width)
	}
	done := p.bytes.Load()
	rate := r.rate(now, done)
	pct := 100.0
	if total > 0 {
		pct = 100 * float64(done) / float64(total)
	}
	return withBar(pct, fmt.Sprintf(" %5.1f%% %s/%s %d obj %s/s ETA %s", pct, size(done), size(total), p.objects.Load(),
		size(uint64(rate)), eta(r, now, total-min(done, total), rate)), width)
}

// treeLine is a CephFS copy's status line: bytes and files against the
// tree's total, once it is counted (until then, what was counted so far,
// with a +).
func treeLine(p *progress, r *rateMeter, now time.Time, width int) string {
	copied := p.bytes.Load()
	rate := r.rate(now, copied)
	done, total := copied+p.tree.passed.Load(), p.tree.bytes.Load()
	files, totalFiles := p.tree.done.Load(), p.tree.files.Load()
	// The count reads sizes from directory listings, which can lag a
	// file being written: what is done is at least the total.
	total, totalFiles = max(total, done), max(totalFiles, files)
	if !p.tree.counted.Load() {
		return strings.TrimSpace(fmt.Sprintf("%s/%s+ %d/%d+ files %s/s (counting the tree)",
			size(done), size(total), files, totalFiles, size(uint64(rate))))
	}
	pct := 100.0
	if total > 0 {
		pct = min(100*float64(done)/float64(total), 100)
	}
	return withBar(pct, fmt.Sprintf(" %5.1f%% %s/%s %d/%d files %s/s ETA %s", pct, size(done), size(total), files, totalFiles,
		size(uint64(rate)), eta(r, now, total-min(done, total), rate)), width)
}

// eta is the time left for remaining bytes at rate, or "-" until the rate
// is steady.
func eta(r *rateMeter, now time.Time, remaining uint64, rate float64) string {
	if remaining == 0 || rate <= 0 || !r.steady(now) {
		return "-"
	}
	return time.Duration(float64(remaining) / rate * float64(time.Second)).Round(time.Second).String()
}

// withBar puts a bar of pct before text if width leaves room for one.
func withBar(pct float64, text string, width int) string {
	bar := min(width-1-len(text)-2, 30)
	if bar < 10 {
		return strings.TrimSpace(text)
	}
	filled := int(pct / 100 * float64(bar))
	return "[" + strings.Repeat("#", filled) + strings.Repeat(".", bar-filled) + "]" + text
}

// size is n bytes in binary units, short.
func size(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1fGiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fKiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}

func (d *progressDisplay) finish() {
	select {
	case <-d.done:
		return
	default:
	}
	close(d.stop)
	<-d.done
}
