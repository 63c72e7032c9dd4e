package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDefaults(t *testing.T) {
	setup(t)
	cfg, src := mustLoad(t, newLoader(t))
	if !reflect.DeepEqual(cfg, Default()) {
		t.Errorf("loaded with nothing set:\n%+v\nwant Default():\n%+v", cfg, Default())
	}
	want := Config{ConnectTimeout: 30 * time.Second, Window: 16, Chunk: 4 << 20,
		ObjectSize: 4 << 20, StripeUnit: 0, StripeCount: 1, Progress: "auto", LogLevel: "warn", LogFormat: "text", PinSource: true}
	want.sources = cfg.sources
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("defaults %+v, want %+v", cfg, want)
	}
	if len(src) != len(keys)+1 {
		t.Errorf("%d sources, want one per key and config", len(src))
	}
	for k, s := range src {
		if s != "default" {
			t.Errorf("source of %s = %q, want default", k, s)
		}
	}
}

func TestPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name          string
		file, env     string // window in the file and RADOSCP_WINDOW; "" for none
		flags         []string
		want          int
		wantSource    string // "file" stands for "file:PATH"
		wantChunk     uint64 // chunk set alongside in every layer given
		wantChunkFrom string
	}{
		{"default", "", "", nil, 16, "default", 4 << 20, "default"},
		{"file", "32", "", nil, 32, "file", 8 << 20, "file"},
		{"env over default", "", "48", nil, 48, "env:RADOSCP_WINDOW", 16 << 20, "env:RADOSCP_CHUNK"},
		{"env over file", "32", "48", nil, 48, "env:RADOSCP_WINDOW", 16 << 20, "env:RADOSCP_CHUNK"},
		{"flag over all", "32", "48", []string{"--window=64", "--chunk=32m"}, 64, "flag", 32 << 20, "flag"},
		{"flag over file", "32", "", []string{"--window", "64", "--chunk", "32MiB"}, 64, "flag", 32 << 20, "flag"},
		// Given on the command line, a flag wins even at its default.
		{"flag at its default", "32", "48", []string{"--window=16", "--chunk=4M"}, 16, "flag", 4 << 20, "flag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xdg := setup(t)
			path := filepath.Join(xdg, "radoscp", "config.yaml")
			if tc.file != "" {
				writeFile(t, path, "window: "+tc.file+"\nchunk: 8M\n")
			}
			if tc.env != "" {
				t.Setenv("RADOSCP_WINDOW", tc.env)
				t.Setenv("RADOSCP_CHUNK", "16MiB")
			}
			cfg, src := mustLoad(t, newLoader(t, tc.flags...))
			wantSource := strings.Replace(tc.wantSource, "file", "file:"+path, 1)
			wantChunkFrom := strings.Replace(tc.wantChunkFrom, "file", "file:"+path, 1)
			if cfg.Window != tc.want || src["window"] != wantSource {
				t.Errorf("window %d from %q, want %d from %q", cfg.Window, src["window"], tc.want, wantSource)
			}
			if cfg.Chunk != tc.wantChunk || src["chunk"] != wantChunkFrom {
				t.Errorf("chunk %d from %q, want %d from %q", cfg.Chunk, src["chunk"], tc.wantChunk, wantChunkFrom)
			}
			if src["object-size"] != "default" {
				t.Errorf("object-size from %q, want default", src["object-size"])
			}
		})
	}
}

func TestEveryKeyFromEveryLayer(t *testing.T) {
	values := map[string]struct {
		text  string
		check func(Config) bool
	}{
		"conf":             {"/etc/ceph/other.conf", func(c Config) bool { return c.Conf == "/etc/ceph/other.conf" }},
		"id":               {"backup", func(c Config) bool { return c.ID == "backup" }},
		"name":             {"client.backup", func(c Config) bool { return c.Name == "client.backup" }},
		"keyring":          {"/etc/ceph/backup.keyring", func(c Config) bool { return c.Keyring == "/etc/ceph/backup.keyring" }},
		"connect-timeout":  {"5s", func(c Config) bool { return c.ConnectTimeout == 5*time.Second }},
		"op-timeout":       {"2m", func(c Config) bool { return c.OpTimeout == 2*time.Minute }},
		"window":           {"0", func(c Config) bool { return c.Window == 0 }},
		"max-window":       {"128", func(c Config) bool { return c.MaxWindow == 128 }},
		"chunk":            {"64K", func(c Config) bool { return c.Chunk == 64<<10 }},
		"object-size":      {"8M", func(c Config) bool { return c.ObjectSize == 8<<20 }},
		"stripe-unit":      {"1M", func(c Config) bool { return c.StripeUnit == 1<<20 }},
		"stripe-count":     {"4", func(c Config) bool { return c.StripeCount == 4 }},
		"json":             {"true", func(c Config) bool { return c.JSON }},
		"progress":         {"off", func(c Config) bool { return c.Progress == "off" }},
		"log-level":        {"debug", func(c Config) bool { return c.LogLevel == "debug" }},
		"log-format":       {"json", func(c Config) bool { return c.LogFormat == "json" }},
		"verbose":          {"true", func(c Config) bool { return c.Verbose }},
		"quiet":            {"true", func(c Config) bool { return c.Quiet }},
		"max-rate":         {"100M", func(c Config) bool { return c.MaxRate == 100<<20 }},
		"max-ops":          {"500", func(c Config) bool { return c.MaxOps == 500 }},
		"metrics-addr":     {"127.0.0.1:9101", func(c Config) bool { return c.MetricsAddr == "127.0.0.1:9101" }},
		"metrics-textfile": {"/var/lib/node_exporter/radoscp.prom", func(c Config) bool { return c.MetricsTextfile == "/var/lib/node_exporter/radoscp.prom" }},
		"offload-only":     {"true", func(c Config) bool { return c.OffloadOnly }},
		"pin-source":       {"false", func(c Config) bool { return !c.PinSource }},
		"allow-missing":    {"true", func(c Config) bool { return c.AllowMissing }},
	}
	if len(values) != len(keys) {
		t.Fatalf("the test covers %d keys of %d", len(values), len(keys))
	}
	for _, layer := range []string{"file", "env", "flag"} {
		t.Run(layer, func(t *testing.T) {
			xdg := setup(t)
			var file strings.Builder
			var args []string
			for name, v := range values {
				switch layer {
				case "file":
					file.WriteString(name + ": \"" + v.text + "\"\n")
				case "env":
					t.Setenv(envName(name), v.text)
				case "flag":
					args = append(args, "--"+name+"="+v.text)
				}
			}
			if layer == "file" {
				writeFile(t, filepath.Join(xdg, "radoscp", "config.yaml"), file.String())
			}
			cfg, src := mustLoad(t, newLoader(t, args...))
			for name, v := range values {
				if !v.check(cfg) {
					t.Errorf("%s=%s from the %s did not arrive: %+v", name, v.text, layer, cfg)
				}
				if !strings.HasPrefix(src[name], layer) {
					t.Errorf("source of %s = %q, want the %s", name, src[name], layer)
				}
			}
		})
	}
}

func TestShortFlags(t *testing.T) {
	setup(t)
	cfg, _ := mustLoad(t, newLoader(t, "-c", "/x.conf", "-n", "client.a", "-k", "/x.keyring"))
	if cfg.Conf != "/x.conf" || cfg.Name != "client.a" || cfg.Keyring != "/x.keyring" {
		t.Errorf("short flags gave %+v", cfg)
	}
}

func TestEmptyVariableIsUnset(t *testing.T) {
	xdg := setup(t)
	writeFile(t, filepath.Join(xdg, "radoscp", "config.yaml"), "window: 32\n")
	t.Setenv("RADOSCP_WINDOW", "")
	cfg, src := mustLoad(t, newLoader(t))
	if cfg.Window != 32 || !strings.HasPrefix(src["window"], "file:") {
		t.Errorf("window %d from %s, want 32 from the file", cfg.Window, src["window"])
	}
}

func TestReload(t *testing.T) {
	xdg := setup(t)
	path := filepath.Join(xdg, "radoscp", "config.yaml")
	writeFile(t, path, "window: 8\n")
	l := newLoader(t, "--chunk=1M")
	for _, step := range []struct {
		content string // "" removes the file
		want    int
		from    string
	}{
		{"window: 8\n", 8, "file:" + path},
		{"window: 24\nmax-window: 100\n", 24, "file:" + path},
		{"", 16, "default"},
		{"window: 2\n", 2, "file:" + path},
	} {
		if step.content == "" {
			if err := removeFile(path); err != nil {
				t.Fatal(err)
			}
		} else {
			writeFile(t, path, step.content)
		}
		cfg, src := mustLoad(t, l)
		if cfg.Window != step.want || src["window"] != step.from {
			t.Errorf("after writing %q: window %d from %s, want %d from %s",
				step.content, cfg.Window, src["window"], step.want, step.from)
		}
		if cfg.Chunk != 1<<20 {
			t.Errorf("reload lost the flag: chunk %d", cfg.Chunk)
		}
	}
}
