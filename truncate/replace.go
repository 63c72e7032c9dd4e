package truncate

import (
	"errors"
	"fmt"
	"sync"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
)

// removeObjects removes objects [first, end) of names, up to width at a
// time; missing ones are fine. It returns every failure, joined.
func removeObjects(objs store.Objects, names layout.Namer, first, end uint64, width int) error {
	if first >= end {
		return nil
	}
	width = max(width, 1)
	next := make(chan uint64)
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for range min(uint64(width), end-first) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for obj := range next {
				if err := objs.Remove(names.ObjectName(obj)); err != nil && !errors.Is(err, store.ErrNotFound) {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	for obj := first; obj < end; obj++ {
		next <- obj
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove the old objects: %w", err)
	}
	return nil
}

// setsEnd is the number of the first object past the object sets that
// bytes [0, end) touch: every object that may hold any of them is below.
func setsEnd(l layout.Layout, end uint64) uint64 {
	return (end + l.SetSize() - 1) / l.SetSize() * l.StripeCount
}
