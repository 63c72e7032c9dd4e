package objcopy

import "github.com/radoscp/radoscp/store"

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
