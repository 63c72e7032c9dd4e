package test

import (
	"bytes"
	"testing"
)

// Equal fails t unless got and want hold the same bytes, naming what was
// compared and the first byte that differs (never dumping the data).
func Equal(t testing.TB, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("%s differs at byte %d of %d", what, i, len(want))
		}
	}
	t.Fatalf("%s: %d bytes, want %d", what, len(got), len(want))
}
