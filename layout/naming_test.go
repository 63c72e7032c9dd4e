package layout

import (
	"math"
	"testing"
)

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		n    Namer
		obj  uint64
		want string
	}{
		{CephFS(0x10000000000), 3, "10000000000.00000003"},
		{CephFS(0x10000000000), 0, "10000000000.00000000"},
		{CephFS(0x1000000abcd), 0x1234abcd, "1000000abcd.1234abcd"},
		// Past 8 hex digits the number widens rather than wrapping.
		{CephFS(1), 0x100000000, "1.100000000"},
		{Striper("vm.img"), 0, "vm.img.0000000000000000"},
		{Striper("vm.img"), 0x2a, "vm.img.000000000000002a"},
		{Striper("a.b"), math.MaxUint64, "a.b.ffffffffffffffff"},
		{Prefix("src"), 10, "src.0000000a"},
		{Prefix(""), 1, ".00000001"},
	} {
		if got := tc.n.ObjectName(tc.obj); got != tc.want {
			t.Errorf("%#v.ObjectName(%d) = %q, want %q", tc.n, tc.obj, got, tc.want)
		}
	}
}
