package truncate

import (
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados"
)

// Raw is a raw object set (PREFIX.%08x objects with no metadata). Its EOF is
// whatever the caller says; its objects are written under generation (0, 0),
// so plain librados writes to them later are never clipped; a cut-back
// removes or truncates the objects the copy wrote past the EOF.
type Raw struct {
	objs   rados.Objects
	layout layout.Layout
	names  layout.Namer
	eof    uint64
}

var _ Destination = (*Raw)(nil)

// NewRaw describes a raw object set whose current EOF is eof (0 for an
// empty destination).
func NewRaw(objs rados.Objects, l layout.Layout, prefix string, eof uint64) *Raw {
	return &Raw{objs: objs, layout: l, names: layout.Prefix(prefix), eof: eof}
}

func (r *Raw) Objects() rados.Objects       { return r.objs }
func (r *Raw) Layout() layout.Layout        { return r.layout }
func (r *Raw) Names() layout.Namer          { return r.names }
func (r *Raw) EOF() uint64                  { return r.eof }
func (r *Raw) Generation() rados.Generation { return rados.Generation{} }
func (r *Raw) Offloadable(uint64) bool      { return true }
func (r *Raw) Close() error                 { return nil }

// Publish records eof: a raw object set has nowhere to store it, so the
// caller reports it (and passes it back as the EOF of a later copy).
func (r *Raw) Publish(eof uint64) error {
	r.eof = max(r.eof, eof)
	return nil
}

// Checkpoint has nowhere to record eof either.
func (r *Raw) Checkpoint(uint64) error { return nil }

func (r *Raw) CutBack(from, to uint64) error {
	return trimObjects(r.objs, r.layout, r.names, r.eof, from, to, func(uint64) bool { return false })
}
