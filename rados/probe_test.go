package rados

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/radoscp/radoscp/store"
)

// clusterConf is the test cluster's conf, as package test finds it (which
// this internal test cannot import: test imports rados).
func clusterConf(t *testing.T) string {
	conf := os.Getenv("CEPH_CONF")
	switch {
	case conf != "":
		return conf
	case os.Getenv("RADOSCP_REQUIRE_CLUSTER") == "1":
		t.Fatal("no test cluster ($CEPH_CONF unset) and RADOSCP_REQUIRE_CLUSTER=1")
	default:
		t.Skip("no test cluster: $CEPH_CONF unset")
	}
	return ""
}

// The probe passes on the librados the project builds against (so copies
// carry the generation); a librados whose op it does not recognise makes
// every copy-from of the connection fail at submission with EOPNOTSUPP,
// naming why, with nothing sent, which the engine takes as offload not
// available.
func TestOffloadProbe(t *testing.T) {
	for _, mismatch := range []bool{false, true} {
		c, err := Connect(ConnConfig{ConfPath: clusterConf(t)})
		if err != nil {
			t.Fatal(err)
		}
		if mismatch {
			// The probe's verdict on a librados building unrecognised ops.
			c.probe.Do(func() { c.probeErr = probeVerdict(errLayout) })
		}
		p, err := c.OpenPool("radoscp-a", "")
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("TestOffloadProbe-%x", rand.Uint64())
		if err := p.WriteFull(name+".src", []byte("data")); err != nil {
			t.Fatal(err)
		}
		cp, err := p.CopyFrom(name+".dst", p, name+".src", store.CopyOptions{Generation: store.Generation{Seq: 3, Size: 1}})
		if err == nil {
			err = cp.Wait()
		}
		_, serr := p.Stat(name + ".dst")
		p.Remove(name + ".src")
		p.Remove(name + ".dst")
		c.Close()
		switch {
		case !mismatch && err != nil:
			t.Fatalf("probe refused this librados: %v", err)
		case mismatch && (!errors.Is(err, store.ErrNotSupported) || !strings.Contains(err.Error(), "offload is not available")):
			t.Fatalf("with an unrecognised op: %v, want EOPNOTSUPP saying offload is not available", err)
		case mismatch && !errors.Is(serr, syscall.ENOENT):
			t.Fatalf("with an unrecognised op a copy was sent: stat of the destination %v", serr)
		}
	}
}
