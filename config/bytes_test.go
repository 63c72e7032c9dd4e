package config

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestParseBytes(t *testing.T) {
	const (
		bad      = "expected a whole number of bytes with an optional K, M, G, T, P or E suffix (powers of 1024)"
		tooLarge = "larger than the largest size"
	)
	for _, tc := range []struct {
		in   string
		want uint64
		err  string // part of the error; "" for none
	}{
		{"0", 0, ""},
		{"12345", 12345, ""},
		{"007", 7, ""},
		{"0K", 0, ""},
		{"512K", 512 << 10, ""},
		{"4M", 4 << 20, ""},
		{"4Mi", 4 << 20, ""},
		{"4MiB", 4 << 20, ""},
		{"4MB", 4 << 20, ""},
		{"4m", 4 << 20, ""},
		{"4mib", 4 << 20, ""},
		{"1G", 1 << 30, ""},
		{"1Gi", 1 << 30, ""},
		{"2T", 2 << 40, ""},
		{"3P", 3 << 50, ""},
		{"15E", 15 << 60, ""},
		{"100B", 100, ""},
		{"64k", 64 << 10, ""},
		{"18446744073709551615", math.MaxUint64, ""},
		{"17179869183G", 17179869183 << 30, ""},

		{"", 0, bad},
		{"-1", 0, bad},
		{"+1", 0, bad},
		{"1.5M", 0, bad},
		{".5M", 0, bad},
		{" 4M", 0, bad},
		{"4M ", 0, bad},
		{"4 M", 0, bad},
		{"4X", 0, bad},
		{"4Z", 0, bad},
		{"M", 0, bad},
		{"MiB", 0, bad},
		{"4iB", 0, bad},
		{"4i", 0, bad},
		{"4BB", 0, bad},
		{"4KK", 0, bad},
		{"4_000", 0, bad},
		{"0x10", 0, bad},
		{"1e6", 0, bad},
		{"4M\n", 0, bad},
		{"٤M", 0, bad}, // Arabic-Indic four: digits are ASCII only

		{"16E", 0, tooLarge},
		{"18446744073709551616", 0, tooLarge},
		{"99999999999999999999999", 0, tooLarge},
		{"17179869184G", 0, tooLarge},
		{"16777216T", 0, tooLarge},
	} {
		got, err := ParseBytes(tc.in)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("ParseBytes(%q): %v", tc.in, err)
		case tc.err == "" && got != tc.want:
			t.Errorf("ParseBytes(%q) = %d, want %d", tc.in, got, tc.want)
		case tc.err != "" && err == nil:
			t.Errorf("ParseBytes(%q) = %d, want an error", tc.in, got)
		case tc.err != "" && !strings.Contains(err.Error(), tc.err):
			t.Errorf("ParseBytes(%q): %q, want it to say %q", tc.in, err, tc.err)
		case tc.err != "" && !strings.Contains(err.Error(), strconv.Quote(tc.in)):
			t.Errorf("ParseBytes(%q): %q does not name the value", tc.in, err)
		}
	}
}

func TestParseBytesErrorText(t *testing.T) {
	_, err := ParseBytes("4X")
	want := `invalid size "4X": expected a whole number of bytes with an optional K, M, G, T, P or E suffix (powers of 1024)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[uint64]string{
		0: "0", 1: "1", 1023: "1023", 1024: "1K", 1536: "1536", 4 << 20: "4M",
		64 << 10: "64K", 1 << 30: "1G", 3 << 40: "3T", 5 << 50: "5P", 15 << 60: "15E",
		math.MaxUint64: "18446744073709551615", (4 << 20) + 1024: "4097K",
	} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// valid is the whole grammar ParseBytes accepts.
var valid = regexp.MustCompile(`^[0-9]+(?i:[KMGTPE]i?B?|B)?$`)

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"0", "4M", "4MiB", "16E", "18446744073709551616", "-1", "1.5M", " 4M", "kB", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseBytes(s)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(s)) {
				t.Fatalf("ParseBytes(%q): %q does not name the value", s, err)
			}
			if !valid.MatchString(s) && !strings.Contains(err.Error(), "expected a whole number") {
				t.Fatalf("ParseBytes(%q): %q does not say what was expected", s, err)
			}
			return
		}
		if !valid.MatchString(s) {
			t.Fatalf("ParseBytes(%q) = %d, but that is not a size", s, n)
		}
		back, err := ParseBytes(FormatBytes(n))
		if err != nil || back != n {
			t.Fatalf("ParseBytes(FormatBytes(%d)) = %d, %v", n, back, err)
		}
	})
}
