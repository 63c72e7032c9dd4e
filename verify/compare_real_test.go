package verify_test

import (
	"testing"

	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/test"
)

// The same comparisons with the OSDs computing the checksums.
func TestCompareReal(t *testing.T) {
	conf := test.Conf(t)
	c, err := rados.Connect(rados.ConnConfig{ConfPath: conf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	a, err := c.OpenPool("radoscp-a", "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.OpenPool("radoscp-b", "")
	if err != nil {
		t.Fatal(err)
	}
	run(t, a, b, test.UniqueName(t)+"-")
}
