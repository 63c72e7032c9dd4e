package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestWindowAuto(t *testing.T) {
	for _, layer := range []string{"file", "env", "flag"} {
		t.Run(layer, func(t *testing.T) {
			setup(t)
			var l *Loader
			switch layer {
			case "file":
				path := writeFile(t, filepath.Join(t.TempDir(), "c.yaml"), "window: auto\nmax-window: 32\n")
				l = newLoader(t, "--config", path)
			case "env":
				t.Setenv("RADOSCP_WINDOW", "auto")
				t.Setenv("RADOSCP_MAX_WINDOW", "32")
				l = newLoader(t)
			case "flag":
				l = newLoader(t, "-w", "auto", "--max-window", "32")
			}
			cfg, _ := mustLoad(t, l)
			if !cfg.AutoWindow || cfg.Window != 0 || cfg.MaxWindow != 32 {
				t.Errorf("auto window 32: got auto %v window %d max %d", cfg.AutoWindow, cfg.Window, cfg.MaxWindow)
			}
			for _, f := range cfg.Fields() {
				if f.Name == "window" && f.Value != "auto" {
					t.Errorf("window field prints %q, want auto", f.Value)
				}
			}
		})
	}
	// A number after auto turns auto off again.
	cfg, _ := mustLoad(t, newLoader(t, "-w", "auto", "-w", "8"))
	if cfg.AutoWindow || cfg.Window != 8 {
		t.Errorf("-w auto -w 8: auto %v window %d", cfg.AutoWindow, cfg.Window)
	}
}

func TestBadWindowFlag(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	Bind(fs)
	err := fs.Parse([]string{"--window", "automatic"})
	if err == nil || !strings.Contains(err.Error(), `"automatic"`) || !strings.Contains(err.Error(), `or "auto"`) {
		t.Errorf("--window automatic: %v", err)
	}
	setup(t)
	t.Setenv("RADOSCP_WINDOW", "fast")
	if _, _, err := newLoader(t).Load(); err == nil || !strings.Contains(err.Error(), `invalid window "fast"`) {
		t.Errorf("RADOSCP_WINDOW=fast: %v", err)
	}
}
