package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
)

// setup isolates a test from the machine: no RADOSCP_ variables, an empty
// XDG config dir, and a system file that does not exist. It returns the
// XDG dir.
func setup(t *testing.T) (xdg string) {
	t.Helper()
	t.Setenv(envName(configKey), "")
	for _, k := range keys {
		t.Setenv(envName(k.name), "")
	}
	xdg = t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	return xdg
}

// newLoader binds a fresh flag set and parses args into it.
func newLoader(t *testing.T, args ...string) *Loader {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	l := Bind(fs)
	l.systemFile = filepath.Join(t.TempDir(), "etc", "config.yaml")
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	return l
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func mustLoad(t *testing.T, l *Loader) (Config, Sources) {
	t.Helper()
	cfg, src, err := l.Load()
	if err != nil {
		t.Fatal(err)
	}
	return cfg, src
}

func removeFile(path string) error { return os.Remove(path) }
