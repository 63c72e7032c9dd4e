package rados_test

import (
	"fmt"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/rados"
	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/test"
)

// RemoveIfVersion removes an object at the version a stat gave, and at no
// other: a change since (an xattr set, a cls_lock taken, which is how a
// rival claims a lock object) leaves the object, with ECANCELED; as
// `rados stat`, not radoscp, sees. On a normal and a slow client.
func TestRemoveIfVersion(t *testing.T) {
	conf := test.Conf(t)
	for _, delay := range []float64{0, 0.3} {
		t.Run(fmt.Sprintf("delay=%v", delay), func(t *testing.T) {
			c := connect(t, rados.ConnConfig{})
			if delay > 0 {
				c = connect(t, rados.ConnConfig{ConfPath: test.SlowConf(t, delay)})
			}
			p := openPool(t, c, "radoscp-a", "")
			changes := map[string]func(oid string) error{
				"xattr": func(oid string) error { return p.SetXattr(oid, "user.x", []byte("1")) },
				"lock": func(oid string) error {
					_, err := p.LockExclusive(oid, "radoscp.copy", "rival", "", time.Minute, false)
					return err
				},
			}
			for what, change := range changes {
				oid := test.UniqueName(t) + "-" + what
				if err := p.Create(oid, map[string][]byte{"m": []byte("made")}); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { p.Remove(oid) })
				st, err := p.Stat(oid)
				if err != nil {
					t.Fatal(err)
				}
				if err := change(oid); err != nil {
					t.Fatal(err)
				}
				if err := p.RemoveIfVersion(oid, st.Version); store.ErrnoOf(err) != syscall.ECANCELED {
					t.Errorf("%s since the stat: RemoveIfVersion = %v, want ECANCELED", what, err)
				}
				if !radosHas(conf, "radoscp-a", oid) {
					t.Fatalf("%s since the stat: the object was removed", what)
				}
				now, err := p.Stat(oid)
				if err != nil {
					t.Fatal(err)
				}
				if err := p.RemoveIfVersion(oid, now.Version); err != nil {
					t.Fatalf("at its version: %v", err)
				}
				if radosHas(conf, "radoscp-a", oid) {
					t.Errorf("at its version: the object is still there")
				}
			}
		})
	}
}

// radosHas says whether `rados stat` finds oid in pool.
func radosHas(conf, pool, oid string) bool {
	return exec.Command("rados", "-c", conf, "-p", pool, "stat", oid).Run() == nil
}
