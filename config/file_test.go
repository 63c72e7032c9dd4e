package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFileLocation(t *testing.T) {
	xdg := setup(t)
	l := newLoader(t)
	userFile := filepath.Join(xdg, "radoscp", "config.yaml")

	writeFile(t, l.systemFile, "window: 3\n")
	if cfg, src := mustLoad(t, l); cfg.Window != 3 || cfg.ConfigFile != l.systemFile || src["window"] != "file:"+l.systemFile {
		t.Errorf("with only the system file: window %d from %s (file %q)", cfg.Window, src["window"], cfg.ConfigFile)
	}
	writeFile(t, userFile, "window: 5\n")
	if cfg, _ := mustLoad(t, l); cfg.Window != 5 || cfg.ConfigFile != userFile {
		t.Errorf("the XDG file must win over the system one: window %d from %q", cfg.Window, cfg.ConfigFile)
	}

	explicit := writeFile(t, filepath.Join(t.TempDir(), "mine.yaml"), "window: 7\n")
	t.Setenv("RADOSCP_CONFIG", explicit)
	if cfg, src := mustLoad(t, l); cfg.Window != 7 || src["config"] != "env:RADOSCP_CONFIG" {
		t.Errorf("RADOSCP_CONFIG: window %d, config from %s", cfg.Window, src["config"])
	}

	flagFile := writeFile(t, filepath.Join(t.TempDir(), "flag.yaml"), "window: 9\n")
	if cfg, src := mustLoad(t, newLoader(t, "--config", flagFile)); cfg.Window != 9 || src["config"] != "flag" || cfg.ConfigFile != flagFile {
		t.Errorf("--config: window %d, config %q from %s", cfg.Window, cfg.ConfigFile, src["config"])
	}

	if cfg, _ := mustLoad(t, newLoader(t, "--config=")); cfg.Window != 16 || cfg.ConfigFile != "" {
		t.Errorf(`--config "" must read no file: window %d from %q`, cfg.Window, cfg.ConfigFile)
	}
}

func TestHomeConfigWithoutXDG(t *testing.T) {
	setup(t)
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", home)
	path := writeFile(t, filepath.Join(home, ".config", "radoscp", "config.yaml"), "window: 11\n")
	if cfg, _ := mustLoad(t, newLoader(t)); cfg.Window != 11 || cfg.ConfigFile != path {
		t.Errorf("window %d from %q, want 11 from %s", cfg.Window, cfg.ConfigFile, path)
	}
}

func TestMissingExplicitFile(t *testing.T) {
	setup(t)
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	for _, tc := range []struct {
		name, says string
		env        bool
	}{
		{"flag", "flag --config", false},
		{"env", "environment variable RADOSCP_CONFIG", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l *Loader
			if tc.env {
				t.Setenv("RADOSCP_CONFIG", missing)
				l = newLoader(t)
			} else {
				l = newLoader(t, "--config", missing)
			}
			_, _, err := l.Load()
			if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), tc.says) ||
				!strings.Contains(err.Error(), "no such file") {
				t.Errorf("Load with a missing explicit file: %v", err)
			}
		})
	}
}

func TestUnknownKeys(t *testing.T) {
	setup(t)
	path := writeFile(t, filepath.Join(t.TempDir(), "c.yaml"),
		"window: 4\nwindwo: 8\nobject_size: 4M\nconfig: /other.yaml\nceph:\n  conf: x\n")
	_, _, err := newLoader(t, "--config", path).Load()
	if err == nil {
		t.Fatal("unknown keys were accepted")
	}
	for _, want := range []string{path, `"windwo"`, `"object_size" (did you mean "object-size"?)`, `"config"`, `"ceph.conf"`, "object-size"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %s", err, want)
		}
	}
}

func TestFileTypes(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"typed.yaml": "window: 32\njson: true\nop-timeout: 1m\nchunk: 4194304\nobject-size: 8M\nstripe-count: 2\n",
		"plain":      "window: 32\njson: yes-not-really\n",
		"c.json":     `{"window": 32, "json": true, "op-timeout": "1m", "chunk": 4194304, "object-size": "8M", "stripe-count": 2}`,
		"c.toml":     "window = 32\njson = true\nop-timeout = \"1m\"\nchunk = 4194304\nobject-size = \"8M\"\nstripe-count = 2\n",
	} {
		t.Run(name, func(t *testing.T) {
			setup(t)
			path := writeFile(t, filepath.Join(dir, name), content)
			cfg, _, err := newLoader(t, "--config", path).Load()
			if name == "plain" { // read as YAML: the bad bool proves it was read
				if err == nil || !strings.Contains(err.Error(), `invalid json "yes-not-really"`) {
					t.Errorf("a file without extension was not read as YAML: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Window != 32 || !cfg.JSON || cfg.OpTimeout != time.Minute || cfg.Chunk != 4<<20 ||
				cfg.ObjectSize != 8<<20 || cfg.StripeCount != 2 {
				t.Errorf("%s gave %+v", name, cfg)
			}
		})
	}
}

func TestUnknownFileType(t *testing.T) {
	setup(t)
	path := writeFile(t, filepath.Join(t.TempDir(), "c.conf"), "window: 3\n")
	_, _, err := newLoader(t, "--config", path).Load()
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), ".yaml") {
		t.Errorf("a .conf file: %v", err)
	}
}

func TestMalformedFile(t *testing.T) {
	setup(t)
	path := writeFile(t, filepath.Join(t.TempDir(), "c.yaml"), "window: [\n")
	_, _, err := newLoader(t, "--config", path).Load()
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("malformed YAML: %v", err)
	}
}
