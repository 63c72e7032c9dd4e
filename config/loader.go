package config

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// Loader resolves a Config from defaults, a config file, the environment
// and the flags it registered, in rising order of precedence.
type Loader struct {
	flags *pflag.FlagSet
	// systemFile is the last config file tried; tests move it.
	systemFile string
}

// Bind registers every setting as a flag on flags, with its default and
// help, plus --config FILE. Sizes are string-valued flags that take the
// suffixes ParseBytes reads. Call Load once flags are parsed.
func Bind(flags *pflag.FlagSet) *Loader {
	flags.String(configKey, "", "config file (default: $XDG_CONFIG_HOME/radoscp/config.yaml, else /etc/radoscp/config.yaml; \"\" for none) [RADOSCP_CONFIG]")
	def := Default()
	for _, k := range keys {
		usage := k.usage + " [" + envName(k.name) + "]"
		switch p := k.field(&def).(type) {
		case *string:
			flags.StringP(k.name, k.short, *p, usage)
		case *bool:
			flags.BoolP(k.name, k.short, *p, usage)
		case *int:
			flags.IntP(k.name, k.short, *p, usage)
		case windowField:
			flags.VarP(&windowFlag{text: p.format()}, k.name, k.short, usage)
		case *time.Duration:
			flags.DurationP(k.name, k.short, *p, usage)
		case *uint64:
			if k.size {
				flags.VarP(&sizeFlag{text: FormatBytes(*p)}, k.name, k.short, usage)
			} else {
				flags.Uint64P(k.name, k.short, *p, usage)
			}
		}
	}
	return &Loader{flags: flags, systemFile: "/etc/radoscp/config.yaml"}
}

// Load resolves the configuration. It reads the config file afresh on
// every call, so a long-running process can call it again to pick up a
// changed file; the flags and environment are read again too. It fails on
// a missing explicit config file, an unknown key in the file, and any
// value that does not parse or is out of range, naming the key, the value
// and where it came from (every such error at once, joined).
func (l *Loader) Load() (Config, Sources, error) {
	file, err := l.findFile()
	if err != nil {
		return Config{}, nil, err
	}
	v := viper.New()
	var fromFile *viper.Viper // the file alone, to tell its keys apart
	if file.path != "" {
		if fromFile, err = readFile(file.path, file.source); err != nil {
			return Config{}, nil, err
		}
		if err := v.MergeConfigMap(fromFile.AllSettings()); err != nil {
			return Config{}, nil, fmt.Errorf("config file %s: %w", file.path, err)
		}
	}
	def := Default()
	for _, k := range keys {
		v.SetDefault(k.name, k.format(&def))
		if err := v.BindEnv(k.name, envName(k.name)); err != nil {
			return Config{}, nil, err
		}
		if f := l.flags.Lookup(k.name); f != nil {
			if err := v.BindPFlag(k.name, f); err != nil {
				return Config{}, nil, err
			}
		}
	}

	cfg := Config{ConfigFile: file.path, sources: Sources{configKey: file.source}}
	parsed := map[string]string{} // key -> text, for the keys that parsed
	var errs []error
	for _, k := range keys {
		src := l.sourceOf(k.name, fromFile, file.path)
		cfg.sources[k.name] = src
		text, reason := asText(v.Get(k.name))
		if reason == "" {
			reason = k.parse(&cfg, text)
		}
		if reason != "" {
			errs = append(errs, invalid(k.name, text, src, reason))
			continue
		}
		parsed[k.name] = text
	}
	// Range checks come second because stripe-unit's depends on
	// object-size; a key that did not parse was reported already.
	for _, k := range keys {
		text, ok := parsed[k.name]
		if !ok || k.check == nil {
			continue
		}
		if expected := k.check(cfg); expected != "" {
			errs = append(errs, invalid(k.name, text, cfg.sources[k.name], "expected "+expected))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, nil, err
	}
	src := make(Sources, len(cfg.sources))
	for k, s := range cfg.sources {
		src[k] = s
	}
	return cfg, src, nil
}

// sourceOf says which layer gave viper its value for name, asking in
// viper's own order: a flag set on the command line, a non-empty
// variable, the file, else the default.
func (l *Loader) sourceOf(name string, fromFile *viper.Viper, path string) string {
	if f := l.flags.Lookup(name); f != nil && f.Changed {
		return "flag"
	}
	if os.Getenv(envName(name)) != "" {
		return "env:" + envName(name)
	}
	if fromFile != nil && fromFile.IsSet(name) {
		return "file:" + path
	}
	return "default"
}

func invalid(name, text, source, reason string) error {
	return fmt.Errorf("invalid %s %q from %s: %s", name, text, describe(name, source), reason)
}

// describe turns a source into words an operator can act on.
func describe(name, source string) string {
	switch {
	case source == "flag":
		return "flag --" + name
	case strings.HasPrefix(source, "env:"):
		return "environment variable " + strings.TrimPrefix(source, "env:")
	case strings.HasPrefix(source, "file:"):
		return "config file " + strings.TrimPrefix(source, "file:")
	}
	return source
}

// asText turns what viper holds (a string from a flag or a variable, a
// scalar from the file, where JSON numbers are all floats) into text for
// key.parse.
func asText(v any) (text, reason string) {
	switch v := v.(type) {
	case nil:
		return "", ""
	case string:
		return v, ""
	case bool:
		return strconv.FormatBool(v), ""
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, time.Duration:
		return fmt.Sprint(v), ""
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), ""
	case float32:
		return strconv.FormatFloat(float64(v), 'f', -1, 32), ""
	}
	return fmt.Sprint(v), "expected a single value, not a list or a map"
}

// sizeFlag is a flag that takes a size with a suffix and keeps the text,
// so that viper sees what was typed and ParseBytes checks it at parse time.
type sizeFlag struct{ text string }

func (f *sizeFlag) String() string { return f.text }
func (f *sizeFlag) Type() string   { return "size" }
func (f *sizeFlag) Set(s string) error {
	if _, err := ParseBytes(s); err != nil {
		return err
	}
	f.text = s
	return nil
}
