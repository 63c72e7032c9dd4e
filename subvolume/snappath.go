package subvolume

// SnapshotPath is the tree of the snapshot r clones, as Clone resolves it
// (reading only), for a display to count alongside the clone. Clone
// reports the errors it gives.
func (c *Cloner) SnapshotPath(r Request) (string, error) {
	src, err := c.source(r.withDefaultGroup())
	return src.path, err
}
