package radoscp_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/truncate"
)

// The kernel patch's sysfs churn test: the configured window changes all the
// time while eight copies run; each copy reads it once, keeps to that
// snapshot for its whole life, and comes out intact.
func TestWindowChurnDuringCopies(t *testing.T) {
	f := newFixture(t, small, 24*obj)
	f.store.Latency = func(string) time.Duration { return 200 * time.Microsecond }
	var setting atomic.Int64
	setting.Store(4)
	stop := make(chan struct{})
	go func() {
		for i := int64(0); ; i++ {
			select {
			case <-stop:
				return
			default:
				setting.Store(i % 70)
				time.Sleep(50 * time.Microsecond)
			}
		}
	}()
	defer close(stop)

	var wg sync.WaitGroup
	for c := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dst := &counting{Objects: f.dstP}
			prefix := fmt.Sprintf("churn%d", c)
			snapshot := int(setting.Load())
			res, err := f.engine.Copy(context.Background(), f.source, 0, truncate.NewRaw(dst, small, prefix, 0), 0, 24*obj,
				radoscp.Options{Window: snapshot})
			if err != nil {
				t.Error(err)
				return
			}
			if want := max(snapshot, 1); res.Window != want || dst.maxInFlight.Load() > int64(want) {
				t.Errorf("copy %d: window %d, max in flight %d; snapshot was %d", c, res.Window, dst.maxInFlight.Load(), snapshot)
			}
		}()
	}
	wg.Wait()
	for c := range 8 {
		names := fmt.Sprintf("churn%d", c)
		assertEqual(t, names, readFile(t, f.dstP, small, layout.Prefix(names), 0, 24*obj), f.data)
	}
}
