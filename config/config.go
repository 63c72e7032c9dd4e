package config

import (
	"time"

	"github.com/radoscp/radoscp/store"
	"github.com/radoscp/radoscp/window"
)

// Config is radoscp's whole configuration, resolved. The zero value is not
// the default: use Default, or a Loader.
type Config struct {
	// Ceph connection: -c/--conf, --id, -n/--name, -k/--keyring. Empty
	// leaves each to librados (its conf search, client.admin, the conf's
	// keyring).
	Conf, ID, Name, Keyring string
	// ConnectTimeout bounds the wait for a monitor; 0 means the rados
	// package's default, 30s. OpTimeout fails an OSD or monitor operation
	// that takes longer; 0 waits for ever.
	ConnectTimeout, OpTimeout time.Duration
	// Window is the copy-froms in flight at once per copy; 0 means 1.
	// It is 0 when AutoWindow is set.
	Window int
	// AutoWindow is window "auto": the window adapts to the cluster
	// (AIMD), up to MaxWindow.
	AutoWindow bool
	// MaxWindow bounds an automatic window; 0 means
	// window.DefaultMaxWidthFor the copy's object count.
	MaxWindow int
	// Chunk is the bytes one copy-from carries, 64 KiB to 1 GiB.
	Chunk uint64
	// MaxRate and MaxOps cap the bytes and operations a run starts per
	// second; 0 for no limit.
	MaxRate, MaxOps uint64
	// The layout of raw object sets and new striped objects, in bytes.
	// StripeUnit 0 means the object size; when set, it divides ObjectSize.
	ObjectSize, StripeUnit, StripeCount uint64
	JSON                                bool   // machine-readable output
	Progress                            string // "auto" (when stdout is a terminal), "on" or "off"
	LogLevel                            string // "debug", "info", "warn" (the default) or "error"
	// LogFormat is "text" (the default) or "json". Verbose logs at debug
	// level (when LogLevel is left at its default); Quiet logs errors
	// only and shows no progress.
	LogFormat      string
	Verbose, Quiet bool
	// MetricsAddr serves /metrics there while running; MetricsTextfile is
	// written for node_exporter when a command ends. Empty for neither.
	MetricsAddr, MetricsTextfile string
	// OffloadOnly fails rather than copy through the client when the
	// OSDs do not support copy-from.
	OffloadOnly bool
	// PinSource pins each source object's version before a rados: or
	// striper: copy, so that a source changing during the copy fails it
	// rather than mixing old and new data.
	PinSource bool
	// AllowMissing lets a rados: source range in which no object exists
	// be copied, as a hole; otherwise such a copy fails with ENOENT (it is
	// almost always a mistyped name or offset).
	AllowMissing bool

	// ConfigFile is the config file that was read, "" if none.
	ConfigFile string

	sources Sources
}

// Default returns the configuration with nothing set.
func Default() Config {
	return Config{
		ConnectTimeout: 30 * time.Second,
		Window:         window.DefaultWidth,
		Chunk:          store.DefaultChunk,
		ObjectSize:     4 << 20,
		StripeCount:    1,
		Progress:       "auto",
		LogLevel:       "warn",
		LogFormat:      "text",
		PinSource:      true,
		sources:        defaultSources(),
	}
}

// Sources tells where each setting came from, by key (the flag's name):
// "default", "file:PATH", "env:RADOSCP_WINDOW" or "flag". The key "config"
// tells where the config file's path came from.
type Sources map[string]string

func defaultSources() Sources {
	s := Sources{configKey: "default"}
	for _, k := range keys {
		s[k.name] = "default"
	}
	return s
}

// Field is one setting as `radoscp config` prints it.
type Field struct {
	Name   string // the key: flag name, file key, RADOSCP_ variable stem
	Value  string // in the form the key accepts; "" for unset strings
	Source string // as in Sources; "" if c was not built by Default or Load
}

// Fields lists every setting in flag order, the config file first. Nothing
// in a Config is secret: Keyring is the path to the key, never the key.
func (c Config) Fields() []Field {
	out := []Field{{Name: configKey, Value: c.ConfigFile, Source: c.sources[configKey]}}
	for _, k := range keys {
		out = append(out, Field{Name: k.name, Value: k.format(&c), Source: c.sources[k.name]})
	}
	return out
}
