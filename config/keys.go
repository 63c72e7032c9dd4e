package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/radoscp/radoscp/window"
)

// configKey names the file to read; it is a flag and a variable but not a
// key of the file itself.
const configKey = "config"

// key is one setting. Its name is the flag, the key in the file and, upper
// cased with dashes to underscores after RADOSCP_, the variable.
type key struct {
	name, short, usage string
	// field points into a Config: *string, *bool, *int, *time.Duration,
	// *uint64 (a size when size is set, else a plain count), or
	// windowField.
	field func(*Config) any
	size  bool
	// check returns what is expected when the parsed value is out of
	// range, "" when it is fine.
	check func(Config) string
}

var keys = []key{
	{name: "conf", short: "c", usage: "ceph.conf to read (default: librados's own search)",
		field: func(c *Config) any { return &c.Conf }},
	{name: "id", usage: `client id to connect as, without "client." (default: admin)`,
		field: func(c *Config) any { return &c.ID }},
	{name: "name", short: "n", usage: "full client name, e.g. client.admin; wins over --id",
		field: func(c *Config) any { return &c.Name }},
	{name: "keyring", short: "k", usage: "keyring file (default: the one ceph.conf names)",
		field: func(c *Config) any { return &c.Keyring }},
	{name: "connect-timeout", usage: "how long to wait for a monitor",
		field: func(c *Config) any { return &c.ConnectTimeout }},
	{name: "op-timeout", usage: "fail an OSD or monitor operation taking longer; 0 waits for ever",
		field: func(c *Config) any { return &c.OpTimeout }},
	{name: "window", short: "w", usage: `copy-froms in flight at once per copy (0 means 1), or "auto" to adapt up to --max-window`,
		field: func(c *Config) any { return windowField{&c.Window, &c.AutoWindow} },
		check: func(c Config) string { return inFlight(c.Window, "(0 means 1)") }},
	{name: "max-window", usage: fmt.Sprintf("largest window an automatic window may reach, at most %d; 0: a quarter of the copy's objects, %d to %d",
		window.MaxInFlight, window.DefaultMaxWidth, window.MaxInFlight),
		field: func(c *Config) any { return &c.MaxWindow },
		check: func(c Config) string { return inFlight(c.MaxWindow, "(0: by the copy's object count)") }},
	{name: "chunk", usage: "bytes one copy-from carries, 64K to 1G (suffixes are powers of 1024)",
		field: func(c *Config) any { return &c.Chunk }, size: true,
		check: func(c Config) string {
			if c.Chunk < minChunk || c.Chunk > maxChunk {
				return "a size from 64K to 1G"
			}
			return ""
		}},
	{name: "max-rate", usage: "bytes started per second, for the whole run (suffixes K, M, G: powers of 1024; 0: no limit)",
		field: func(c *Config) any { return &c.MaxRate }, size: true},
	{name: "max-ops", usage: "operations (copy-froms, client reads and writes) started per second, for the whole run (0: no limit)",
		field: func(c *Config) any { return &c.MaxOps }},
	{name: "object-size", usage: "object size of raw object sets and new striped objects",
		field: func(c *Config) any { return &c.ObjectSize }, size: true,
		check: func(c Config) string {
			if c.ObjectSize == 0 {
				return "a size of 1 or more bytes"
			}
			return ""
		}},
	{name: "stripe-unit", usage: "stripe unit of raw object sets and new striped objects (0: the object size)",
		field: func(c *Config) any { return &c.StripeUnit }, size: true,
		check: func(c Config) string {
			if c.StripeUnit != 0 && c.ObjectSize != 0 && c.ObjectSize%c.StripeUnit != 0 {
				return "0 (the object size) or a size that divides object-size " + FormatBytes(c.ObjectSize)
			}
			return ""
		}},
	{name: "stripe-count", usage: "objects a stripe spans in raw object sets and new striped objects",
		field: func(c *Config) any { return &c.StripeCount },
		check: func(c Config) string {
			if c.StripeCount < 1 {
				return "a whole number, 1 or more"
			}
			return ""
		}},
	{name: "json", usage: "print results as JSON",
		field: func(c *Config) any { return &c.JSON }},
	{name: "log-level", usage: "log messages at this level and above on stderr: debug, info, warn or error",
		field: func(c *Config) any { return &c.LogLevel },
		check: func(c Config) string {
			switch c.LogLevel {
			case "debug", "info", "warn", "error":
				return ""
			}
			return "debug, info, warn or error"
		}},
	{name: "log-format", usage: "log lines as text (key=value) or json (one JSON object a line)",
		field: func(c *Config) any { return &c.LogFormat },
		check: func(c Config) string {
			switch c.LogFormat {
			case "text", "json":
				return ""
			}
			return "text or json"
		}},
	{name: "verbose", short: "v", usage: "say more: log at debug level (as --log-level debug): checkpoints and every decision",
		field: func(c *Config) any { return &c.Verbose }},
	{name: "quiet", short: "q", usage: "say only what failed: log errors only and show no progress",
		field: func(c *Config) any { return &c.Quiet }},
	{name: "progress", usage: "show progress: auto (when stdout is a terminal), on or off",
		field: func(c *Config) any { return &c.Progress },
		check: func(c Config) string {
			switch c.Progress {
			case "auto", "on", "off":
				return ""
			}
			return "auto, on or off"
		}},
	{name: "metrics-addr", usage: "serve Prometheus /metrics on this host:port while running",
		field: func(c *Config) any { return &c.MetricsAddr }},
	{name: "metrics-textfile", usage: "write metrics to this file for node_exporter's textfile collector at the end",
		field: func(c *Config) any { return &c.MetricsTextfile }},
	{name: "offload-only", usage: "fail instead of copying through the client when the OSDs cannot copy-from",
		field: func(c *Config) any { return &c.OffloadOnly }},
	{name: "pin-source", usage: "pin each source object's version, so a source changing during the copy fails it instead of mixing old and new data (one stat per object; --pin-source=false to skip)",
		field: func(c *Config) any { return &c.PinSource }},
	{name: "allow-missing", usage: "copy a rados: source range in which no object exists, as a hole (without it such a copy fails with ENOENT naming the first missing object)",
		field: func(c *Config) any { return &c.AllowMissing }},
}

const (
	minChunk = 64 << 10
	maxChunk = 1 << 30
)

// inFlight checks a window: 0 to window.MaxInFlight copy-froms in flight.
func inFlight(v int, zero string) string {
	if v < 0 || v > window.MaxInFlight {
		return fmt.Sprintf("a whole number from 0 to %d %s: an OSD admits %d client operations at once by default (osd_client_message_cap), "+
			"and a copy-from whose source is on the same OSD needs a second one to read it; "+
			"with every one held by copy-froms the OSD stops for every client (docs/reference.md, --window)", window.MaxInFlight, zero, 2*window.MaxInFlight)
	}
	return ""
}

func atLeast(v, lo int, expected string) string {
	if v < lo {
		return expected
	}
	return ""
}

// envName is the variable that sets a key.
func envName(name string) string {
	return "RADOSCP_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// format writes k's value in c in a form parse reads back.
func (k key) format(c *Config) string {
	switch p := k.field(c).(type) {
	case *string:
		return *p
	case *bool:
		return strconv.FormatBool(*p)
	case *int:
		return strconv.Itoa(*p)
	case windowField:
		return p.format()
	case *time.Duration:
		return p.String()
	case *uint64:
		if k.size {
			return FormatBytes(*p)
		}
		return strconv.FormatUint(*p, 10)
	}
	panic("config: key " + k.name + " has a field of no known type")
}

// parse sets k's field in c from text. On failure it returns why the text
// was refused, in words that start "expected" when they can.
func (k key) parse(c *Config, text string) (reason string) {
	var err error
	switch p := k.field(c).(type) {
	case *string:
		*p = text
	case *bool:
		if *p, err = strconv.ParseBool(text); err != nil {
			return "expected true or false"
		}
	case *int:
		if *p, err = strconv.Atoi(text); err != nil {
			return "expected a whole number"
		}
	case windowField:
		return p.parse(text)
	case *time.Duration:
		if *p, err = time.ParseDuration(text); err != nil || *p < 0 {
			return "expected a duration such as 30s, 1m30s or 0"
		}
	case *uint64:
		if k.size {
			if *p, err = ParseBytes(text); err != nil {
				return err.(*sizeError).reason
			}
		} else if *p, err = strconv.ParseUint(text, 10, 64); err != nil {
			return "expected a whole number"
		}
	default:
		panic(fmt.Sprintf("config: key %s has a field of type %T", k.name, p))
	}
	return ""
}
