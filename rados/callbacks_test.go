package rados

import (
	"sync"
	"testing"
)

// Many goroutines register and complete at once, as submissions and
// librados' completion threads do: every id is distinct and comes back
// with its own value exactly once, and nothing is left registered.
func TestCallbacksConcurrentRegisterAndComplete(t *testing.T) {
	var r callbacks[int]
	const workers, each = 8, 1000
	ids := make(chan [2]uint64, workers*each)
	var submit, complete sync.WaitGroup
	for w := 0; w < workers; w++ {
		submit.Add(1)
		go func(w int) {
			defer submit.Done()
			for i := 0; i < each; i++ {
				v := w*each + i
				ids <- [2]uint64{r.add(v), uint64(v)}
			}
		}(w)
	}
	seen := make([]bool, workers*each)
	var mu sync.Mutex
	for w := 0; w < workers; w++ {
		complete.Add(1)
		go func() {
			defer complete.Done()
			for p := range ids {
				v, ok := r.take(p[0])
				if !ok || uint64(v) != p[1] {
					t.Errorf("take(%d) = %d, %v; want %d, true", p[0], v, ok, p[1])
					continue
				}
				mu.Lock()
				if seen[v] {
					t.Errorf("value %d completed twice", v)
				}
				seen[v] = true
				mu.Unlock()
				if _, ok := r.take(p[0]); ok {
					t.Errorf("take(%d) twice succeeded", p[0])
				}
			}
		}()
	}
	submit.Wait()
	close(ids)
	complete.Wait()
	if n := r.len(); n != 0 {
		t.Errorf("%d entries left registered", n)
	}
	for v, ok := range seen {
		if !ok {
			t.Errorf("value %d never completed", v)
		}
	}
}

// A failed submission takes its entry back; an unknown id is not found.
func TestCallbacksTakeUnknown(t *testing.T) {
	var r callbacks[string]
	id := r.add("x")
	if id == 0 {
		t.Error("add returned id 0")
	}
	if v, ok := r.take(id); !ok || v != "x" {
		t.Errorf("take(%d) = %q, %v", id, v, ok)
	}
	if _, ok := r.take(id + 1); ok {
		t.Error("take of an id never added succeeded")
	}
	if r.len() != 0 {
		t.Errorf("len %d after take", r.len())
	}
}
