package radoscp

import "github.com/radoscp/radoscp/layout"

// CopyFroms is how many copy-froms a copy of these arguments makes when
// it succeeds, which is what its Result.Objects then says: the objects of
// the plan's offloaded segments whose destination object offloadable
// allows (a striped object's first, which carries its metadata, is
// written by the client), none when the pools' pair cannot offload. A dry
// run reports it, so that its count is the run's.
func (e *Engine) CopyFroms(src Source, srcOff uint64, dst Target, dstOff, length uint64, offloadable func(obj uint64) bool) (uint64, error) {
	segs, err := layout.Plan(src.Layout, srcOff, dst.Layout, dstOff, length)
	if err != nil {
		return 0, err
	}
	pair := pairOf(src, dst)
	if !e.Offload(pair.src, pair.dst) {
		return 0, nil
	}
	var n uint64
	for _, s := range segs {
		if s.Kind != layout.Offload {
			continue
		}
		for k := range s.Objects(src.Layout) {
			if _, obj := s.Object(src.Layout, k); offloadable(obj) {
				n++
			}
		}
	}
	return n, nil
}
