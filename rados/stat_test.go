package rados_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// StatAsync answers what Stat answers (size, mtime and the version the
// pins compare), ErrNotFound for a missing object, and calls done exactly
// once for each of many stats in flight at once, on a normal client and
// on one whose OSD replies come late (so all are in flight together).
func TestStatAsyncAnswersAsStat(t *testing.T) {
	admin := connect(t, rados.ConnConfig{})
	setup := openPool(t, admin, "radoscp-a", "")
	name := test.UniqueName(t)
	const objects = 100
	for i := range objects {
		oid := fmt.Sprintf("%s.%d", name, i)
		if err := setup.WriteFull(oid, randomBytes(t, 100+i)); err != nil {
			t.Fatal(err)
		}
		for range i % 3 { // objects written more than once
			if err := setup.Write(oid, []byte("v"), 0); err != nil {
				t.Fatal(err)
			}
		}
		t.Cleanup(func() { setup.Remove(oid) })
	}
	for _, delay := range []float64{0, 0.3} {
		t.Run(fmt.Sprintf("delay=%v", delay), func(t *testing.T) {
			c := admin
			if delay > 0 {
				c = connect(t, rados.ConnConfig{ConfPath: test.SlowConf(t, delay)})
			}
			p := openPool(t, c, "radoscp-a", "")
			type answer struct {
				st    store.ObjectStat
				err   error
				calls int
			}
			var mu sync.Mutex
			got := make([]answer, objects+1) // the last one is missing
			var wg sync.WaitGroup
			for i := range objects + 1 {
				wg.Add(1)
				err := p.StatAsync(fmt.Sprintf("%s.%d", name, i), func(st store.ObjectStat, err error) {
					mu.Lock()
					got[i].st, got[i].err = st, err
					got[i].calls++
					mu.Unlock()
					wg.Done()
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			wg.Wait()
			for i := range objects {
				oid := fmt.Sprintf("%s.%d", name, i)
				want, err := setup.Stat(oid)
				if err != nil {
					t.Fatal(err)
				}
				switch a := got[i]; {
				case a.calls != 1:
					t.Errorf("%s: done called %d times", oid, a.calls)
				case a.err != nil:
					t.Errorf("%s: %v", oid, a.err)
				case a.st.Size != want.Size || a.st.Version != want.Version || !a.st.ModTime.Equal(want.ModTime):
					t.Errorf("%s: StatAsync %+v, Stat %+v", oid, a.st, want)
				}
			}
			if a := got[objects]; a.calls != 1 || !errors.Is(a.err, store.ErrNotFound) {
				t.Errorf("missing object: done called %d times with %v; want once with ErrNotFound", a.calls, a.err)
			}
			if _, stats := rados.PendingCallbacks(); stats != 0 {
				t.Errorf("%d stats left registered after every stat completed", stats)
			}
		})
	}
}
