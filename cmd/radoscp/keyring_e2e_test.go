package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/radoscp/radoscp/test"
)

// runUnprivileged runs the binary as runCmd does, but as root without
// the capabilities that read any file (CAP_DAC_OVERRIDE,
// CAP_DAC_READ_SEARCH), so that a file of mode 000 cannot be read by it.
func runUnprivileged(t *testing.T, args ...string) result {
	t.Helper()
	if os.Geteuid() != 0 {
		return runCmd(t, nil, args...)
	}
	drop := "-dac_override,-dac_read_search"
	r := test.RunBinary(t, "setpriv", nil, append([]string{"--bounding-set=" + drop, "--inh-caps=" + drop, binary}, args...)...)
	return result{code: r.Code, stdout: r.Stdout, stderr: r.Stderr}
}

// TestE2EKeyringCannotBeRead: a keyring that exists but cannot be read
// (mode 000), given with --keyring or found through the conf's keyring
// option, is said so ("cannot read keyring FILE: permission denied"), not
// called a failed authentication; it is invalid input (exit 2), as a -c
// that cannot be read is, and nothing is written. A missing --keyring
// exits 2 as well. Normal and slow client; the destination pool is listed
// with the rados CLI.
func TestE2EKeyringCannotBeRead(t *testing.T) {
	conf := test.Conf(t)
	for _, c := range []struct{ name, conf string }{{"normal", conf}, {"slow", test.SlowConf(t, 0.5)}} {
		t.Run(c.name, func(t *testing.T) {
			admin, err := os.ReadFile(filepath.Join(filepath.Dir(conf), "ceph.client.admin.keyring"))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			closed := filepath.Join(dir, "closed.keyring")
			if err := os.WriteFile(closed, admin, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(closed, 0); err != nil {
				t.Fatal(err)
			}
			// The conf with its keyring option naming the closed keyring,
			// named ceph.conf in a directory of its own ($cluster).
			text, err := os.ReadFile(c.conf)
			if err != nil {
				t.Fatal(err)
			}
			confClosed := filepath.Join(t.TempDir(), "ceph.conf")
			s := regexp.MustCompile(`(?m)^keyring = .*$`).ReplaceAllString(string(text), "keyring = "+closed)
			if err := os.WriteFile(confClosed, []byte(s), 0o600); err != nil {
				t.Fatal(err)
			}
			missing := filepath.Join(dir, "none.keyring")
			for _, k := range []struct {
				name string
				args []string
				want string
			}{
				{"--keyring unreadable", []string{"-c", c.conf, "--keyring", closed}, "radoscp: cannot read keyring " + closed + ": permission denied\n"},
				{"conf keyring unreadable", []string{"-c", confClosed}, "radoscp: cannot read keyring " + closed + ": permission denied\n"},
				{"--keyring missing", []string{"-c", c.conf, "--keyring", missing}, "radoscp: as client.admin with --keyring " + missing + " (missing): "},
			} {
				d := test.UniqueName(t)
				args := append(append([]string{"cp", "--no-progress"}, k.args...), "--length", "1M", "rados:radoscp-a/x", "rados:radoscp-b/"+d)
				r := runUnprivileged(t, args...)
				if r.code != 2 || !strings.HasPrefix(r.stderr, k.want) || strings.Contains(r.stderr, "authentication") {
					t.Errorf("%s: exit %d, stderr %q; want 2, %q and no authentication failure", k.name, r.code, r.stderr, k.want)
				}
				if got := listNamed(t, conf, "radoscp-b", d); len(got) != 0 {
					t.Errorf("%s: wrote %q", k.name, got)
				}
			}
		})
	}
}
