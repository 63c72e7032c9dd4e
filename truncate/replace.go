package truncate

import (
	"errors"
	"fmt"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
	"golang.org/x/sync/errgroup"
)

// removeObjects removes objects [first, end) of names, up to width at a
// time; missing ones are fine. It returns the first failure.
func removeObjects(objs store.Objects, names layout.Namer, first, end uint64, width int) error {
	var g errgroup.Group
	g.SetLimit(max(width, 1))
	for obj := first; obj < end; obj++ {
		g.Go(func() error {
			if err := objs.Remove(names.ObjectName(obj)); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("remove the old objects: %w", err)
	}
	return nil
}

// setsEnd is the number of the first object past the object sets that
// bytes [0, end) touch: every object that may hold any of them is below.
func setsEnd(l layout.Layout, end uint64) uint64 {
	return (end + l.SetSize() - 1) / l.SetSize() * l.StripeCount
}
