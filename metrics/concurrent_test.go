package metrics

import (
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestConcurrent runs every method from many goroutines while others
// scrape; run it under -race. The totals must come out exact.
func TestConcurrent(t *testing.T) {
	const workers, ops = 16, 2000
	m := New()
	stop := make(chan struct{})
	var readers sync.WaitGroup
	readers.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				testutil.CollectAndCount(m)
				_ = m.Snapshot()
			}
		}
	})

	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range ops {
				m.InFlight(1)
				m.Window(w)
				var err error
				if i%4 == 0 {
					err = syscall.EIO
				}
				m.CopyDone(time.Duration(i)*time.Microsecond, 3, err)
				m.ClientIO(1, 2)
				m.Progress(5)
				if i%100 == 0 {
					m.Fallback()
					m.CutBack()
				}
				m.InFlight(-1)
			}
		})
	}
	wg.Wait()
	close(stop)
	readers.Wait()

	s := m.Snapshot()
	total := uint64(workers * ops)
	if s.CopiesOK+s.CopiesFailed != total || s.Failures["EIO"] != total/4 {
		t.Errorf("copies %d ok + %d failed (EIO %d), want %d with %d EIO",
			s.CopiesOK, s.CopiesFailed, s.Failures["EIO"], total, total/4)
	}
	if s.BytesOK+s.BytesFailed != 3*total || s.ClientRead != total ||
		s.ClientWritten != 2*total || s.CopiedBytes != 5*total {
		t.Errorf("bytes off: %+v", s)
	}
	if s.Fallbacks != total/100 || s.CutBacks != total/100 {
		t.Errorf("fallbacks %d, cutbacks %d, want %d", s.Fallbacks, s.CutBacks, total/100)
	}
	if s.InFlight != 0 {
		t.Errorf("in flight %d after everything finished", s.InFlight)
	}
	if s.Window < 0 || s.Window >= workers {
		t.Errorf("window %d is none of the values set", s.Window)
	}
	if h := m.latency.read(); h.count != total {
		t.Errorf("histogram count %d, want %d", h.count, total)
	}
}
