package config

import (
	"math"
	"strconv"
	"strings"
)

// Size suffixes are powers of 1024 whichever way they are written, as in
// Ceph's own tools (ceph osd pool set, rbd --object-size): an operator
// copying "4M" from a Ceph command means 4 MiB, never 4,000,000.
var sizeShifts = func() map[string]uint {
	m := map[string]uint{"": 0, "B": 0}
	for i, p := range "KMGTPE" {
		shift := 10 * uint(i+1)
		for _, form := range []string{"", "I", "B", "IB"} {
			m[string(p)+form] = shift
		}
	}
	return m
}()

const sizeForm = "a whole number of bytes with an optional K, M, G, T, P or E suffix (powers of 1024)"

// sizeError keeps the reason apart from the value, so that config can say
// where a bad size came from in the same sentence.
type sizeError struct{ value, reason string }

func (e *sizeError) Error() string { return "invalid size " + strconv.Quote(e.value) + ": " + e.reason }

// ParseBytes parses a byte count: decimal digits, then optionally one of
// the suffixes K, M, G, T, P, E, each also written with an "i", a "B" or
// both ("4M", "4Mi", "4MB", "4MiB"), in any case. Every suffix is a power
// of 1024, as in Ceph's tools; "B" alone means bytes. It rejects what it
// cannot read exactly rather than guess: an empty string, a sign, a
// fraction, spaces anywhere, an unknown suffix, and anything above
// 2^64-1. The error names the value and the form expected.
func ParseBytes(s string) (uint64, error) {
	digits := strings.TrimLeft(s, "0123456789")
	digits = s[:len(s)-len(digits)]
	suffix := s[len(digits):]
	shift, ok := sizeShifts[strings.ToUpper(suffix)]
	if digits == "" || !ok {
		return 0, &sizeError{s, "expected " + sizeForm}
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || n > math.MaxUint64>>shift {
		return 0, &sizeError{s, "larger than the largest size, 18446744073709551615 bytes (16E - 1)"}
	}
	return n << shift, nil
}

// FormatBytes writes n in the largest unit that holds it exactly ("4M",
// "64K", "12345"), so that ParseBytes reads it back unchanged.
func FormatBytes(n uint64) string {
	if n == 0 {
		return "0"
	}
	for i := 5; i >= 0; i-- {
		shift := 10 * uint(i+1)
		if n&(1<<shift-1) == 0 {
			return strconv.FormatUint(n>>shift, 10) + string("KMGTPE"[i])
		}
	}
	return strconv.FormatUint(n, 10)
}
