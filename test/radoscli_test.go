package test

import (
	"bytes"
	"os/exec"
	"testing"
)

// The rados CLI's deaths at shutdown that RadosCLI retries, told from
// others by their signal and standard error: stand-in processes that
// print what the CLI printed in CI and die of the same signal.
func TestAbortedAtShutdown(t *testing.T) {
	for _, c := range []struct {
		name, script string
		want         bool
	}{
		{"abort", `echo "terminate called: Resource deadlock avoided" >&2; kill -ABRT $$`, true},
		{"segv in shutdown", `echo "13: (librados::v14_2_0::Rados::shutdown()+0x28)" >&2; kill -SEGV $$`, true},
		{"segv elsewhere", `echo "3: (Objecter::handle_osd_op_reply()+0x10)" >&2; kill -SEGV $$`, false},
		{"abort elsewhere", `echo "FAILED ceph_assert" >&2; kill -ABRT $$`, false},
		{"plain failure", `echo "error getting radoscp-a/x: (2) No such file or directory" >&2; exit 1`, false},
	} {
		var stderr bytes.Buffer
		cmd := exec.Command("sh", "-c", c.script)
		cmd.Stderr = &stderr
		err := cmd.Run()
		out := stderr.Bytes()
		if got := abortedAtShutdown(out, err); got != c.want {
			t.Errorf("%s (%v, %q): aborted at shutdown %v, want %v", c.name, err, out, got, c.want)
		}
	}
}
