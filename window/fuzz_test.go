package window

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

// serial is the trivially correct model of Run: one operation at a time,
// stopping at the first that is cancelled, fails to submit or fails. It
// returns the Done, Err and Submission that Run must report.
func serial(n uint64, waitErr, submitErr map[uint64]error, cancelAfter uint64) (uint64, error, bool) {
	for i := range n {
		if i > cancelAfter {
			return i, context.Canceled, true
		}
		if err := submitErr[i]; err != nil {
			return i, err, true
		}
		if err := waitErr[i]; err != nil {
			return i, err, false
		}
	}
	return n, nil, false
}

// FuzzRun checks Run against serial for any width, failure pattern,
// cancellation point and completion order. Indices >= n mean "none".
func FuzzRun(f *testing.F) {
	f.Add(uint8(0), int8(4), uint8(0), uint8(0), uint8(0), uint8(0), uint64(1))
	f.Add(uint8(30), int8(4), uint8(255), uint8(255), uint8(255), uint8(255), uint64(2))
	f.Add(uint8(30), int8(0), uint8(7), uint8(255), uint8(255), uint8(255), uint64(3))
	f.Add(uint8(30), int8(-3), uint8(255), uint8(255), uint8(9), uint8(255), uint64(4))
	f.Add(uint8(30), int8(10), uint8(12), uint8(3), uint8(8), uint8(255), uint64(5))
	f.Add(uint8(30), int8(100), uint8(255), uint8(255), uint8(255), uint8(17), uint64(6))
	f.Add(uint8(200), int8(16), uint8(150), uint8(199), uint8(180), uint8(160), uint64(7))
	f.Fuzz(func(t *testing.T, n8 uint8, width int8, wait1, wait2, sub, cancelAt uint8, seed uint64) {
		n := uint64(n8)
		w := max(int(width), 1)
		f := &fake{t: t, waitErr: map[uint64]error{}, submitErr: map[uint64]error{}, readier: seed%2 == 1, completer: seed%4 == 3}
		for _, i := range []uint8{wait1, wait2} {
			f.waitErr[uint64(i)] = errAt(uint64(i))
		}
		f.submitErr[uint64(sub)] = errors.New("submit failed")
		// Latencies from the seed: some operations complete at once, the
		// rest within 50µs, so completions arrive in any order.
		r := rand.New(rand.NewPCG(seed, seed>>32))
		lat := make([]time.Duration, n)
		for i := range lat {
			if r.IntN(4) > 0 {
				lat[i] = time.Duration(r.IntN(50)) * time.Microsecond
			}
		}
		f.latency = func(i uint64) time.Duration { return lat[i] }
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		f.onSubmit = func(i uint64) {
			if i == uint64(cancelAt) {
				cancel()
			}
		}

		res := Run(ctx, n, int(width), f.submit, f.done)
		f.check(res, w)

		done, err, submission := serial(n, f.waitErr, f.submitErr, uint64(cancelAt))
		if res.Done != done || res.Submission != submission || !errors.Is(res.Err, err) || (err == nil) != (res.Err == nil) {
			t.Fatalf("Run = %+v, want Done %d, Err %v, Submission %v", res, done, err, submission)
		}
		if res.Width != w {
			t.Errorf("Width = %d, want %d", res.Width, w)
		}
		switch {
		case err == nil:
			if res.Submitted != n {
				t.Errorf("Submitted = %d after success, want %d", res.Submitted, n)
			}
		case submission:
			if res.Submitted != done {
				t.Errorf("Submitted = %d after submission failure, want %d", res.Submitted, done)
			}
		default:
			// Up to a window's worth past the failure (Lookahead windows
			// for Readiers) may have started, but
			// never past a later submission failure or cancellation.
			hi := min(n, done+uint64(w*f.lookahead()), uint64(sub), uint64(cancelAt)+1)
			if res.Submitted <= done || res.Submitted > hi {
				t.Errorf("Submitted = %d, want in (%d, %d]", res.Submitted, done, hi)
			}
		}
	})
}
