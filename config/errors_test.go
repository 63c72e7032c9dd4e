package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestBadValues(t *testing.T) {
	for _, tc := range []struct {
		layer, key, value string
		says              string // what was expected, in part
	}{
		{"env", "window", "abc", "expected a whole number"},
		{"env", "window", "-1", "from 0 to 128 (0 means 1)"},
		{"file", "window", "-3", "from 0 to 128 (0 means 1)"},
		{"flag", "window", "-1", "from 0 to 128 (0 means 1)"},
		{"flag", "window", "129", "from 0 to 128 (0 means 1): an OSD admits 256 client operations at once"},
		{"file", "window", "4096", "from 0 to 128"},
		{"file", "window", "2.5", "expected a whole number"},
		{"env", "max-window", "-1", "from 0 to 128 (0: by the copy's object count)"},
		{"flag", "max-window", "1024", "from 0 to 128 (0: by the copy's object count)"},
		{"file", "chunk", "32K", "a size from 64K to 1G"},
		{"env", "chunk", "2G", "a size from 64K to 1G"},
		{"flag", "chunk", "4k", "a size from 64K to 1G"},
		{"env", "chunk", "4X", "optional K, M, G, T, P or E suffix"},
		{"file", "chunk", "1.5M", "optional K, M, G, T, P or E suffix"},
		{"env", "object-size", "16E", "larger than the largest size"},
		{"file", "object-size", "0", "1 or more bytes"},
		{"env", "stripe-unit", "3M", "divides object-size 4M"},
		{"flag", "stripe-count", "0", "1 or more"},
		{"env", "stripe-count", "2K", "expected a whole number"},
		{"file", "progress", "maybe", "auto, on or off"},
		{"flag", "progress", "ON", "auto, on or off"},
		{"env", "json", "yes", "true or false"},
		{"env", "op-timeout", "30", "a duration such as 30s"},
		{"file", "connect-timeout", "-1s", "a duration such as 30s"},
	} {
		t.Run(tc.layer+"/"+tc.key+"="+tc.value, func(t *testing.T) {
			setup(t)
			var l *Loader
			var where string
			switch tc.layer {
			case "env":
				t.Setenv(envName(tc.key), tc.value)
				l = newLoader(t)
				where = "environment variable " + envName(tc.key)
			case "file":
				path := writeFile(t, filepath.Join(t.TempDir(), "c.yaml"), tc.key+": "+tc.value+"\n")
				l = newLoader(t, "--config", path)
				where = "config file " + path
			case "flag":
				l = newLoader(t, "--"+tc.key+"="+tc.value)
				where = "flag --" + tc.key
			}
			_, _, err := l.Load()
			if err == nil {
				t.Fatal("accepted")
			}
			for _, want := range []string{"invalid " + tc.key + " \"" + tc.value + "\"", "from " + where, tc.says} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

func TestBadValuesAllReported(t *testing.T) {
	setup(t)
	t.Setenv("RADOSCP_WINDOW", "many")
	t.Setenv("RADOSCP_JSON", "sure")
	_, _, err := newLoader(t, "--progress=loud").Load()
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"RADOSCP_WINDOW", "RADOSCP_JSON", "--progress"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

func TestListValueInFile(t *testing.T) {
	setup(t)
	path := writeFile(t, filepath.Join(t.TempDir(), "c.yaml"), "window: [1, 2]\n")
	_, _, err := newLoader(t, "--config", path).Load()
	if err == nil || !strings.Contains(err.Error(), "not a list or a map") || !strings.Contains(err.Error(), path) {
		t.Errorf("a list for window: %v", err)
	}
}

// A bad size on the command line fails as the flags are parsed, before
// Load, with pflag naming the flag.
func TestBadSizeFlag(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	Bind(fs)
	err := fs.Parse([]string{"--chunk", "4X"})
	if err == nil || !strings.Contains(err.Error(), `"4X"`) || !strings.Contains(err.Error(), "chunk") ||
		!strings.Contains(err.Error(), "powers of 1024") {
		t.Errorf("--chunk 4X: %v", err)
	}
}
