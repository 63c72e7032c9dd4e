package fscopy

import (
	"context"
	"errors"
)

// markInterrupted makes a failure caused by the copy's context being
// cancelled (an interrupt) an Interrupted outcome: the file did not fail,
// it was stopped, and Resume continues it.
func markInterrupted(r *Report) {
	if r.Outcome == Failed && errors.Is(r.Err, context.Canceled) {
		r.Outcome = Interrupted
	}
}
