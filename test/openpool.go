package test

import (
	"testing"

	"github.com/radoscp/radoscp/rados"
)

// OpenPool connects to the cluster of conf as client.admin and opens pool
// (default namespace); the connection is closed when t ends.
func OpenPool(t testing.TB, conf, pool string) *rados.Pool {
	t.Helper()
	conn, err := rados.Connect(rados.ConnConfig{ConfPath: conf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	p, err := conn.OpenPool(pool, "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}
