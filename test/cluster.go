package test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The environment that connects tests to a cluster. cluster.sh writes the
// first two into DIR/env; make test and CI set the third.
const (
	// EnvConf names the test cluster's ceph.conf; the client.admin keyring
	// is found through it.
	EnvConf = "CEPH_CONF"
	// EnvCephFS is "1" when the cluster has a CephFS (cluster.sh start --fs).
	EnvCephFS = "RADOSCP_CEPHFS"
	// EnvRequire, when set (and not "0" or "false"), turns every skip for
	// a missing cluster into a failure, so that CI cannot pass by skipping.
	EnvRequire = "RADOSCP_REQUIRE_CLUSTER"
)

// cephTimeout bounds one ceph CLI call: a cluster that stops answering
// fails the test instead of hanging it until go test's own timeout.
const cephTimeout = 2 * time.Minute

// Conf returns the path of the test cluster's ceph.conf, from $CEPH_CONF.
// Without a readable one the test is skipped, or fails when
// $RADOSCP_REQUIRE_CLUSTER is set (make test, CI).
func Conf(t testing.TB) string {
	t.Helper()
	conf := os.Getenv(EnvConf)
	if conf == "" {
		unavailable(t, "no test cluster: $"+EnvConf+" is not set (make cluster-up, then source the env file it names)")
		return ""
	}
	f, err := os.Open(conf)
	if err != nil {
		unavailable(t, fmt.Sprintf("no test cluster: $%s: %v", EnvConf, err))
		return ""
	}
	f.Close()
	watchTest(t, conf)
	return conf
}

// FS returns the test cluster's ceph.conf like Conf, for tests that need
// its CephFS "cephfs" (data pools cephfs_data, the default, and
// cephfs_data2). Without one ($RADOSCP_CEPHFS is not 1) the test is skipped,
// or fails when $RADOSCP_REQUIRE_CLUSTER is set.
func FS(t testing.TB) string {
	t.Helper()
	conf := Conf(t)
	if conf == "" {
		return ""
	}
	if os.Getenv(EnvCephFS) != "1" {
		unavailable(t, "the test cluster has no CephFS ($"+EnvCephFS+" is not 1; start it with cluster.sh start --fs)")
		return ""
	}
	return conf
}

// required says whether a missing cluster is a failure.
func required() bool {
	v := os.Getenv(EnvRequire)
	return v != "" && v != "0" && !strings.EqualFold(v, "false")
}

// unavailable skips t, or fails it when a cluster is required.
func unavailable(t testing.TB, msg string) {
	t.Helper()
	if required() {
		t.Fatal(msg + "; $" + EnvRequire + " makes this a failure")
		return
	}
	t.Skip(msg)
}

// Ceph runs the ceph CLI as client.admin against the test cluster and
// returns its standard output; on failure it fails t with the standard
// error. Example: Ceph(t, "osd", "pool", "ls").
func Ceph(t testing.TB, args ...string) string {
	t.Helper()
	conf := Conf(t)
	if conf == "" {
		return ""
	}
	out, err := ceph(conf, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ceph(conf string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), cephTimeout)
	defer cancel()
	// The connect timeout makes a dead mon an error, not a hang; the name
	// overrides any --id in $CEPH_ARGS.
	full := append([]string{"-c", conf, "--name", "client.admin", "--connect-timeout", "30"}, args...)
	cmd := exec.CommandContext(ctx, "ceph", full...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("ceph %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return stdout.String(), nil
}

var clientName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// Client creates client.NAME on the test cluster with caps given as TYPE,
// SPEC pairs, as "ceph auth get-or-create" takes them, or updates the caps
// of an existing client.NAME; it returns the path of a keyring holding its
// key. The keyring is not next to ceph.conf, so pass it explicitly (rados
// --keyring, or the keyring option of a connection). When t ends the client
// is deleted. Example:
//
//	keyring := test.Client(t, name, "mon", "allow r",
//		"osd", "allow rw pool=radoscp-a object_prefix "+name)
func Client(t testing.TB, name string, caps ...string) (keyring string) {
	t.Helper()
	conf := Conf(t)
	if conf == "" {
		return ""
	}
	if !clientName.MatchString(name) {
		t.Fatalf("Client: invalid client name %q", name)
	}
	if len(caps) == 0 || len(caps)%2 != 0 {
		t.Fatalf("Client(%q): caps must be TYPE, SPEC pairs, got %q", name, caps)
	}
	entity := "client." + name
	keyring = filepath.Join(t.TempDir(), "ceph."+entity+".keyring")
	// get-or-create refuses an existing client whose caps differ, so give
	// an existing one the new caps first.
	if _, err := ceph(conf, "auth", "get", entity); err == nil {
		Ceph(t, append([]string{"auth", "caps", entity}, caps...)...)
	}
	Ceph(t, append(append([]string{"auth", "get-or-create", entity}, caps...), "-o", keyring)...)
	// The CLI writes it world-readable, which radoscp warns about.
	if err := os.Chmod(keyring, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := ceph(conf, "auth", "del", entity); err != nil {
			t.Errorf("deleting test client: %v", err)
		}
	})
	return keyring
}

// InjectCopyFromError makes every copy-from on every OSD fail with EIO
// (on) or work again (off), through osd_debug_inject_copyfrom_error; a
// failed copy-from leaves its destination untouched. Turning it on also
// turns it off again when t ends.
//
// This affects the whole cluster, not just t: a test that uses it must not
// run in parallel with other tests that copy, and packages must be tested
// one at a time (go test -p 1, as make test does).
func InjectCopyFromError(t testing.TB, on bool) {
	t.Helper()
	setCopyFromError(t, on)
	if on {
		t.Cleanup(func() { setCopyFromError(t, false) })
	}
}

func setCopyFromError(t testing.TB, on bool) {
	t.Helper()
	// tell waits for every OSD to apply the option; "ceph config set"
	// would reach them some time later. The OSDs say the change is "not
	// observed, change may require restart": it is read on every
	// copy-from, so it needs none.
	Ceph(t, "tell", "osd.*", "injectargs", fmt.Sprintf("--osd_debug_inject_copyfrom_error=%t", on))
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// UniqueName returns a new name for t's objects, clients or files: t's name
// with characters other than letters, digits, '_' and '-' replaced, and a
// random suffix, so that tests, their repetitions and earlier runs on a
// long-lived cluster do not collide. It is valid as an object name prefix
// and as a cephx client name.
func UniqueName(t testing.TB) string {
	name := unsafeChars.ReplaceAllString(t.Name(), "-")
	if len(name) > 40 {
		name = name[:40]
	}
	return fmt.Sprintf("%s-%012x", name, rand.Uint64()>>16)
}
