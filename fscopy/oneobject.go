package fscopy

import "github.com/radoscp/radoscp/layout"

// oneObject reports whether a file of size bytes with layout l lies in
// its object 0 alone. Such a copy is a single write through the client
// (object 0 carries the inode's backtrace, so it is never copied by
// copy-from): there is nothing to resume, so its staging file records
// neither its source nor its EOF nor its owner: no xattr round trip at
// the MDS (the mark every staging file carries is a mode, staging.go).
// Object 0 is the one object the MDS always purges when a staging file
// is removed, whatever its size says, so an interrupted one-object copy
// leaves nothing behind once its staging file is gone.
func oneObject(size uint64, l layout.Layout) bool {
	return size <= l.StripeUnit || (l.StripeCount == 1 && size <= l.ObjectSize)
}

// stagingStriping is the striping a staging file gets for source layout
// sl: the source's, or Options.Striping.
func (c *Copier) stagingStriping(sl layout.Layout) layout.Layout {
	if c.opts.Striping != nil {
		return *c.opts.Striping
	}
	return sl
}
