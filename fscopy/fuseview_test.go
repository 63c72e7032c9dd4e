package fscopy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// fuseView reads the test's files back through a ceph-fuse mount: cmp,
// stat, getfattr, no radoscp code.
type fuseView struct {
	t    *testing.T
	root string
}

func (v fuseView) local(p string) string { return filepath.Join(v.root, p) }

// pool is the data pool of p's layout.
func (v fuseView) pool(p string) string {
	v.t.Helper()
	return strings.TrimSpace(test.Run(v.t, "getfattr", "--only-values", "-n", "ceph.file.layout.pool", v.local(p)))
}

// inode is p's inode number and link count, as stat -c '%i %h' gives them.
func (v fuseView) inode(p string) string {
	v.t.Helper()
	return strings.TrimSpace(test.Run(v.t, "stat", "-c", "%i %h", v.local(p)))
}

// cmp fails the test unless p holds want.
func (v fuseView) cmp(p string, want []byte) {
	v.t.Helper()
	f := filepath.Join(v.t.TempDir(), "want")
	if err := os.WriteFile(f, want, 0o600); err != nil {
		v.t.Fatal(err)
	}
	test.Run(v.t, "cmp", f, v.local(p))
}

// eachClientViewed runs f as eachClient does, each run with a fresh env
// and a view through one ceph-fuse mount.
func eachClientViewed(t *testing.T, f func(t *testing.T, v fuseView, e *env, slow float64)) {
	root := test.FuseMount(t)
	eachClient(t, func(t *testing.T, slow float64) {
		f(t, fuseView{t: t, root: root}, newEnv(t), slow)
	})
}
