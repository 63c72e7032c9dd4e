package fscopy_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/radoscp/radoscp/fscopy"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
	"github.com/radoscp/radoscp/verify"
)

// corrupting writes one wrong byte into every object a copy-from wrote,
// after the copy: a copy that looks complete (size and EOF record right)
// but is not the source, which only verification can find.
type corrupting struct {
	store.Objects
	mu   sync.Mutex
	hits int
}

func (c *corrupting) Submit(dstOid string, src store.Location, o store.CopyOptions) (store.Pending, error) {
	p, err := c.Objects.Submit(dstOid, src, o)
	if err != nil {
		return nil, err
	}
	if err := p.Wait(); err != nil {
		return p, nil
	}
	c.mu.Lock()
	c.hits++
	c.mu.Unlock()
	return p, c.Objects.Write(dstOid, []byte{0xa5}, 100)
}

// migrate verifies every file before it replaces its original (the
// default): a copy made wrong is found, named, and the original stays
// exactly as it was, in its pool; without the corruption, the same
// migrate succeeds verified.
func TestMigrateVerifiesBeforeReplacing(t *testing.T) {
	e := newEnv(t)
	data := test.RandomData(41, 9<<20)
	e.write(t, e.path("f"), nil, 0o640, map[uint64][]byte{0: data})
	bad := &corrupting{}
	var reports []fscopy.Report
	c := e.copier(t, fscopy.Options{Copy: copyOpts(4), Pool: "cephfs_data2", Verify: verify.OSD,
		WrapObjects: func(o store.Objects) store.Objects {
			if p, ok := o.(interface{ Name() string }); ok && p.Name() == "cephfs_data2" {
				bad.Objects = o
				return bad
			}
			return o
		}}, &reports)
	_, err := c.Migrate(context.Background(), e.dir)
	if err == nil || len(reports) != 1 || !errors.Is(reports[0].Err, fscopy.ErrMismatch) || bad.hits == 0 {
		t.Fatalf("migrate of a corrupted copy: %v, reports %+v, %d corrupted objects; want ErrMismatch", err, reports, bad.hits)
	}
	if !strings.Contains(reports[0].Err.Error(), "data differs") || reports[0].Verified == nil || reports[0].Verified.Same() {
		t.Fatalf("report %v: want the difference named", reports[0].Err)
	}
	assertEqual(t, "original after a refused migrate", e.read(t, e.path("f")), data)
	if v, err := e.other.GetXattr(e.path("f"), "ceph.file.layout.pool"); err != nil || string(v) != "cephfs_data" {
		t.Fatalf("original's pool %q, %v: it was replaced", v, err)
	}

	reports = nil
	c = e.copier(t, fscopy.Options{Copy: copyOpts(4), Pool: "cephfs_data2", Verify: verify.OSD}, &reports)
	if _, err := c.Migrate(context.Background(), e.dir); err != nil {
		t.Fatal(err)
	}
	v := reports[0].Verified
	if v == nil || !v.Same() || v.Bytes != uint64(len(data)) || v.ClientBytes*100 >= v.Bytes {
		t.Fatalf("verified %+v; want all %d bytes the same, under 1%% through the client", v, len(data))
	}
	assertEqual(t, "migrated file", e.read(t, e.path("f")), data)
}
