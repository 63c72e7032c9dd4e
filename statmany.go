package radoscp

import (
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/radoscp/radoscp/store"
)

// statMany stats the objects names gives for k in [0, n), in order, width
// at a time, and calls each(k, stat, err) once for every stat it started;
// it stops starting new ones once stop reports true, and returns when the
// started ones are in. Over an AsyncStatter (librados) a stat in flight
// holds no thread: each is a submission and a callback, so a copy's pins
// cost it less client CPU than a thread waiting in a synchronous call for
// each. each must not block.
func statMany(objs store.Objects, n uint64, name func(k uint64) string, width int,
	stop func() bool, each func(k uint64, st store.ObjectStat, err error)) {
	as, ok := objs.(store.AsyncStatter)
	if !ok {
		var g errgroup.Group
		g.SetLimit(width)
		for k := range n {
			if stop() {
				break
			}
			g.Go(func() error {
				st, err := objs.Stat(name(k))
				each(k, st, err)
				return nil
			})
		}
		_ = g.Wait()
		return
	}
	slots := make(chan struct{}, width)
	var wg sync.WaitGroup
	for k := range n {
		slots <- struct{}{}
		if stop() {
			<-slots
			break
		}
		wg.Add(1)
		err := as.StatAsync(name(k), func(st store.ObjectStat, err error) {
			each(k, st, err)
			<-slots
			wg.Done()
		})
		if err != nil {
			each(k, store.ObjectStat{}, err)
			<-slots
			wg.Done()
		}
	}
	wg.Wait()
}
