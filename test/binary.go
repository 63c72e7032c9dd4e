package test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// MainWithBinary builds the main package of the current directory (a
// command's own tests run there) into a temporary directory, stores its
// path in *binary, runs m's tests and exits with their code, removing the
// build afterwards. A command's end-to-end tests call it from TestMain.
func MainWithBinary(m *testing.M, name string, binary *string) {
	dir, err := os.MkdirTemp("", name+"-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*binary = filepath.Join(dir, name)
	// -buildvcs=auto, whatever GOFLAGS says: the build stamps the commit
	// it was made from, which --version reports.
	// The same release tag as this test (make passes build/ceph-tag.sh's):
	// the binary compiles against the installed Ceph headers as the test did.
	out, err := exec.Command("go", "build", "-buildvcs=auto", "-tags", BuildTags(), "-o", *binary, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building %s: %v\n%s", name, err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Result is how a command run by RunBinary ended.
type Result struct {
	Code           int
	Stdout, Stderr string
}

// RunBinary runs binary with args, the environment extended by env, and
// returns its exit code and output; a command that could not be started
// fails t.
func RunBinary(t testing.TB, binary string, env []string, args ...string) Result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	r := Result{Stdout: o.String(), Stderr: e.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		t.Fatalf("running %s %q: %v", filepath.Base(binary), args, err)
	}
	return r
}

// BuildTags is the -tags this test binary was built with ("pacific",
// "reef,...", or "" for none): go-ceph's Ceph release tag among them.
func BuildTags() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-tags" {
				return s.Value
			}
		}
	}
	return ""
}
