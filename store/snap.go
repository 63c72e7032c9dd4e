package store

import "errors"

// ErrSnapshotRemoved marks a copy whose source snapshot was removed while
// it ran. Reads at a removed snapshot may find nothing (ENOENT, which a
// copy takes for holes) or wrong data, so such a copy must not publish
// what it read after the removal; the error names the snapshot.
var ErrSnapshotRemoved = errors.New("source snapshot removed during the copy")
