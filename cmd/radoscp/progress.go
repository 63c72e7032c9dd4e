package main

import (
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/radoscp/radoscp"
)

// progress counts what the engine reports, for the display.
type progress struct {
	radoscp.NopObserver
	bytes   atomic.Uint64
	objects atomic.Uint64
	files   atomic.Uint64 // CephFS copies: files done
	perFile bool          // count files; the total size is not known
}

func (p *progress) Progress(n uint64) { p.bytes.Add(n) }
func (p *progress) InFlight(d int)    { inFlight.Add(int64(d)) }
func (p *progress) CopyDone(_ time.Duration, _ uint64, err error) {
	if err == nil {
		p.objects.Add(1)
	}
}

// progressDisplay redraws one status line on stderr until finished.
type progressDisplay struct {
	stop chan struct{}
	done chan struct{}
}

func startProgress(p *progress, total uint64, on bool) *progressDisplay {
	d := &progressDisplay{stop: make(chan struct{}), done: make(chan struct{})}
	if !on {
		close(d.done)
		return d
	}
	start := time.Now()
	go func() {
		defer close(d.done)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-d.stop:
				drawProgress(p, total, start)
				fmt.Fprintln(os.Stderr)
				return
			case <-t.C:
				drawProgress(p, total, start)
			}
		}
	}()
	return d
}

func drawProgress(p *progress, total uint64, start time.Time) {
	done := p.bytes.Load()
	elapsed := time.Since(start).Seconds()
	rate := float64(done) / max(elapsed, 1e-9)
	if p.perFile {
		fmt.Fprintf(os.Stderr, "\r%d files, %s, %d objects by copy-from, %s/s   ",
			p.files.Load(), mib(done), p.objects.Load(), mib(uint64(rate)))
		return
	}
	pct, eta := 100.0, "-"
	if total > 0 {
		pct = 100 * float64(done) / float64(total)
		if rate > 0 && done < total {
			eta = time.Duration(float64(total-done) / rate * float64(time.Second)).Round(time.Second).String()
		}
	}
	const width = 30
	filled := int(pct / 100 * width)
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = '.'
		if i < filled {
			bar[i] = '#'
		}
	}
	fmt.Fprintf(os.Stderr, "\r[%s] %5.1f%% %s/%s %d objects %s/s ETA %s   ",
		bar, pct, mib(done), mib(total), p.objects.Load(), mib(uint64(rate)), eta)
}

func mib(n uint64) string { return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20)) }

func (d *progressDisplay) finish() {
	select {
	case <-d.done:
		return
	default:
	}
	close(d.stop)
	<-d.done
}
