package radoscp_test

import (
	"strconv"
	"testing"

	"github.com/radoscp/radoscp"
	"github.com/radoscp/radoscp/layout"
	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// delayedPool opens radoscp-a on a new connection to the test cluster
// whose OSD replies are each delayed up to maxDelay seconds.
func delayedPool(b *testing.B, maxDelay float64) store.Objects {
	b.Helper()
	c, err := rados.Connect(rados.ConnConfig{ConfPath: test.Conf(b), Options: map[string]string{
		"ms_inject_delay_type": "osd", "ms_inject_delay_probability": "1",
		"ms_inject_delay_max": strconv.FormatFloat(maxDelay, 'f', -1, 64),
	}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	a, err := c.OpenPool("radoscp-a", "")
	if err != nil {
		b.Fatal(err)
	}
	return a
}

// benchSource writes n objects of layout l into a under a unique name and
// returns them as a copy's source, with the prefix to copy them to; both
// are removed at the end.
func benchSource(b *testing.B, a store.Objects, l layout.Layout, n int) (radoscp.Source, string) {
	b.Helper()
	name := test.UniqueName(b)
	src, dst := layout.Prefix(name+"-src"), layout.Prefix(name+"-dst")
	data := randomData(1, n*int(l.ObjectSize))
	writeFile(b, a, l, src, 0, data)
	b.Cleanup(func() {
		for i := range uint64(n) {
			a.Remove(src.ObjectName(i))
			a.Remove(dst.ObjectName(i))
		}
	})
	return radoscp.Source{Objects: a, Layout: l, Names: src, Size: uint64(len(data))}, name + "-dst"
}
