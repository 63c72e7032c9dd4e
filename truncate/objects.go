package truncate

import (
	"errors"
	"fmt"

	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/store"
)

// trimObjects cuts the objects holding file bytes [from, to) back so that
// none holds data at or past eof: each is truncated to the length a file of
// eof bytes gives it, or removed when that is 0 and keep does not hold it
// (objects that carry metadata are truncated, never removed). Objects
// already short enough are left alone, so nothing below eof changes.
func trimObjects(objs store.Objects, l layout.Layout, names layout.Namer, eof, from, to uint64, keep func(uint64) bool) error {
	if from < eof {
		from = eof
	}
	if from >= to {
		return nil
	}
	set := l.SetSize()
	firstObj := from / set * l.StripeCount
	endObj := (to + set - 1) / set * l.StripeCount
	var errs []error
	for obj := firstObj; obj < endObj; obj++ {
		oid := names.ObjectName(obj)
		want := l.ObjectLength(eof, obj)
		if want == 0 && !keep(obj) {
			if err := objs.Remove(oid); err != nil && !errors.Is(err, store.ErrNotFound) {
				errs = append(errs, err)
			}
			continue
		}
		st, err := objs.Stat(oid)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if st.Size > want {
			if err := objs.Truncate(oid, want); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cut back to EOF %d: %w", eof, err)
	}
	return nil
}
