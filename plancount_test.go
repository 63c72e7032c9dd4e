package radoscp_test

import (
	"context"
	"testing"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/truncate"
)

// Runs without a cluster: CopyFroms, the dry run's object count, says
// what the copy's Result.Objects then says, for whole and partial
// objects, striped layouts, offsets that leave the client part of the
// work, and a destination whose object 0 the client writes.
func TestCopyFromsIsTheRunsCount(t *testing.T) {
	set := striped.SetSize()
	for _, c := range []struct {
		name              string
		l                 layout.Layout
		size              int
		srcOff, dstOff, n uint64
		firstByClient     bool
	}{
		{"whole objects", layout.Layout{StripeUnit: obj, StripeCount: 1, ObjectSize: obj}, 8 * obj, 0, 0, 8 * obj, false},
		{"a partial tail", layout.Layout{StripeUnit: obj, StripeCount: 1, ObjectSize: obj}, 8*obj + 100, 0, 0, 8*obj + 100, false},
		{"the same misalignment", layout.Layout{StripeUnit: obj, StripeCount: 1, ObjectSize: obj}, 8 * obj, 1000, 1000, 6*obj + 10, false},
		{"a different misalignment", layout.Layout{StripeUnit: obj, StripeCount: 1, ObjectSize: obj}, 8 * obj, 0, 1000, 5 * obj, false},
		{"striped sets", striped, int(4*set + 5000), 0, 0, 4*set + 5000, false},
		{"object 0 by the client", layout.Layout{StripeUnit: obj, StripeCount: 1, ObjectSize: obj}, 8 * obj, 0, 0, 8 * obj, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, c.l, c.size)
			offloadable := func(uint64) bool { return true }
			if c.firstByClient {
				offloadable = func(o uint64) bool { return o != 0 }
			}
			dst := firstByClient{truncate.NewRaw(f.dst, c.l, "dst", 0), offloadable}
			want, err := f.engine.CopyFroms(f.source, c.srcOff, radoscp.TargetOf(dst), c.dstOff, c.n, offloadable)
			if err != nil {
				t.Fatal(err)
			}
			res, err := f.engine.Copy(context.Background(), f.source, c.srcOff, dst, c.dstOff, c.n, radoscp.Options{Window: 4})
			if err != nil {
				t.Fatal(err)
			}
			if res.Objects != want {
				t.Errorf("the copy made %d copy-froms, CopyFroms said %d", res.Objects, want)
			}
			if c.name == "whole objects" && want != 8 {
				t.Errorf("CopyFroms of 8 whole objects: %d", want)
			}
		})
	}
}

// firstByClient is a raw destination that lets copy-from write only the
// objects offloadable allows, as a striped destination keeps object 0.
type firstByClient struct {
	*truncate.Raw
	offloadable func(uint64) bool
}

func (d firstByClient) Offloadable(obj uint64) bool { return d.offloadable(obj) }
