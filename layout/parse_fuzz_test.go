package layout

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never accepts a layout Ceph would refuse, that
// what it accepts prints back to itself, and that every refusal is one line
// wrapping ErrInvalid and naming the text it refused.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"stripe_unit=4194304 stripe_count=1 object_size=4194304 pool=cephfs_data",
		"stripe_unit=65536 stripe_count=3 object_size=196608",
		"stripe_unit=1000 stripe_count=1 object_size=4194304",
		"stripe_unit=65536 stripe_count=0 object_size=65536",
		"stripe_unit=65536 stripe_unit=65536 stripe_count=1 object_size=65536",
		"stripe_unit=-1 stripe_count=1 object_size=65536",
		"stripe_unit=65536 stripe_count=1",
		"object_size",
		"",
		"stripe_unit=18446744073709551616 stripe_count=1 object_size=65536",
		"pool_namespace=x stripe_count=1 object_size=65536 stripe_unit=65536",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse(s)
		if err != nil {
			msg := err.Error()
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse(%q): error %q does not wrap ErrInvalid", s, msg)
			}
			if strings.Contains(msg, "\n") {
				t.Fatalf("Parse(%q): multi-line error %q", s, msg)
			}
			return
		}
		if !cephValid(l) {
			t.Fatalf("Parse(%q) accepted %v, which Ceph refuses", s, l)
		}
		if got, err := Parse(l.String()); err != nil || got != l {
			t.Fatalf("Parse(String()) of %v = %v, %v", l, got, err)
		}
	})
}
