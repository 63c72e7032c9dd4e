package objcopy

import (
	"fmt"

	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/store"
)

// Pools is what a copy needs of the cluster: its pools' objects and
// whether a pool has space.
type Pools interface {
	// Pool opens namespace ns of pool. A missing pool gives
	// store.ErrNotFound.
	Pool(pool, ns string) (store.Objects, error)
	// PoolAt opens namespace ns of pool for reading at its pool snapshot
	// snap. A missing pool or snapshot gives store.ErrNotFound.
	PoolAt(pool, ns, snap string) (store.Objects, Snapshot, error)
	// Full fails (matching EDQUOT or ENOSPC) when pool is known to be
	// full or over its quota; nil when it is not, or cannot be told.
	Full(pool string) error
}

// Snapshot is a pool snapshot a copy reads.
type Snapshot interface {
	// Check fails, wrapping store.ErrSnapshotRemoved, once the snapshot
	// is gone. A snapshot cannot come back: reads that completed before
	// a nil answer read it.
	Check() error
	String() string
}

// FromConn serves Pools from a cluster connection.
func FromConn(c *rados.Conn) Pools { return connPools{c} }

type connPools struct{ c *rados.Conn }

var _ Pools = connPools{}

func (p connPools) Pool(pool, ns string) (store.Objects, error) { return p.c.OpenPool(pool, ns) }
func (p connPools) Full(pool string) error                      { return p.c.PoolFull(pool) }

func (p connPools) PoolAt(pool, ns, snap string) (store.Objects, Snapshot, error) {
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

type poolSnap struct {
	c *rados.Conn
	s rados.PoolSnap
}

func (s poolSnap) Check() error   { return s.c.CheckPoolSnap(s.s) }
func (s poolSnap) String() string { return s.s.String() }
