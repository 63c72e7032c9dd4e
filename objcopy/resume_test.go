package objcopy

import "testing"

func TestResumed(t *testing.T) {
	req := Request{SrcOffset: 100, DstOffset: 1000}
	for _, tc := range []struct {
		eof                      uint64
		srcOff, dstOff, leftover uint64
	}{
		{0, 100, 1000, 50},    // nothing published: the whole copy
		{1000, 100, 1000, 50}, // EOF at the start: the whole copy
		{1020, 120, 1020, 30}, // part published
		{1050, 150, 1050, 0},  // all published
		{9999, 150, 1050, 0},  // EOF past the copy's end: nothing left
	} {
		got, left := resumed(tc.eof, req, 50)
		if got.SrcOffset != tc.srcOff || got.DstOffset != tc.dstOff || left != tc.leftover {
			t.Errorf("EOF %d: src %d dst %d length %d, want %d %d %d", tc.eof, got.SrcOffset, got.DstOffset, left, tc.srcOff, tc.dstOff, tc.leftover)
		}
	}
}
