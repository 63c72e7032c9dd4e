package main

import (
	"fmt"

	"github.com/radoscp/radoscp/objcopy"
	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/store"
)

// connPools serves objcopy.Pools from a cluster connection.
type connPools struct{ c *rados.Conn }

var _ objcopy.Pools = connPools{}

func (p connPools) Pool(pool, ns string) (store.Objects, error) { return p.c.OpenPool(pool, ns) }
func (p connPools) Full(pool string) error                      { return p.c.PoolFull(pool) }

func (p connPools) PoolAt(pool, ns, snap string) (store.Objects, objcopy.Snapshot, error) {
	s, err := p.c.LookupPoolSnap(pool, snap)
	if err != nil {
		return nil, nil, err
	}
	objs, err := p.c.OpenPoolAt(pool, ns, s.ID)
	if err != nil {
		return nil, nil, fmt.Errorf("at %s: %w", s, err)
	}
	return objs, poolSnap{p.c, s}, nil
}

// poolSnap is a pool snapshot a copy reads, checked on the cluster.
type poolSnap struct {
	c *rados.Conn
	s rados.PoolSnap
}

func (s poolSnap) Check() error   { return s.c.CheckPoolSnap(s.s) }
func (s poolSnap) String() string { return s.s.String() }
