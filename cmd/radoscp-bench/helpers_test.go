package main

import (
	"os"
	"os/exec"
	"path"
	"strings"
	"testing"

	gocephfs "github.com/ceph/go-ceph/cephfs"

	"github.com/radoscp/radoscp/test"
)

// binary is radoscp-bench, built once for the end-to-end tests: run
// starts itself (run --one) for every contender.
var binary string

func TestMain(m *testing.M) { test.MainWithBinary(m, "radoscp-bench", &binary) }

const oneMiB = 1 << 20

type result struct {
	code           int
	stdout, stderr string
}

func runCmd(t *testing.T, env []string, args ...string) result {
	t.Helper()
	r := test.RunBinary(t, binary, env, args...)
	return result{code: r.Code, stdout: r.Stdout, stderr: r.Stderr}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// listNamed lists every object in pool, in every namespace, whose name
// contains s, as "NAMESPACE\tNAME" lines.
func listNamed(t *testing.T, conf, pool, s string) []string {
	t.Helper()
	out, err := exec.Command("rados", "-c", conf, "-p", pool, "--all", "ls").Output()
	if err != nil {
		t.Fatalf("rados ls %s: %v", pool, err)
	}
	var found []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" && strings.Contains(l, s) {
			found = append(found, l)
		}
	}
	return found
}

// fsEnv is the test cluster's CephFS mounted by the test, with a directory
// of the test's own.
type fsEnv struct {
	conf string
	m    *gocephfs.MountInfo
	dir  string
}

func newFSEnv(t *testing.T) *fsEnv {
	t.Helper()
	conf := test.FS(t)
	m := test.Mount(t)
	return &fsEnv{conf: conf, m: m, dir: test.FSDir(t, m)}
}

func (e *fsEnv) path(p string) string { return path.Join(e.dir, p) }

func (e *fsEnv) write(t *testing.T, p string, data []byte) {
	t.Helper()
	test.WriteFile(t, e.m, e.path(p), data)
}

// read reads p, or reports that it does not exist.
func (e *fsEnv) read(t *testing.T, p string) ([]byte, bool) {
	t.Helper()
	return test.ReadFile(t, e.m, e.path(p))
}
