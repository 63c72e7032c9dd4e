package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/viper"
)

// configFile is the file to read and where its path came from.
type configFile struct{ path, source string }

// findFile picks the config file: --config, else RADOSCP_CONFIG, else the
// first of $XDG_CONFIG_HOME/radoscp/config.yaml (~/.config without XDG)
// and /etc/radoscp/config.yaml that exists. A file named explicitly must
// exist; an explicit "" reads none.
func (l *Loader) findFile() (configFile, error) {
	if f := l.flags.Lookup(configKey); f != nil && f.Changed {
		return configFile{f.Value.String(), "flag"}, nil
	}
	env := envName(configKey)
	if p := os.Getenv(env); p != "" {
		return configFile{p, "env:" + env}, nil
	}
	var candidates []string
	if dir, err := os.UserConfigDir(); err == nil {
		candidates = append(candidates, filepath.Join(dir, "radoscp", "config.yaml"))
	}
	candidates = append(candidates, l.systemFile)
	for _, p := range candidates {
		_, err := os.Stat(p)
		if err == nil {
			return configFile{p, "default"}, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return configFile{}, fmt.Errorf("config file %s: %w", p, unwrapPath(err))
		}
	}
	return configFile{"", "default"}, nil
}

// readFile reads a config file into a viper of its own and refuses keys
// that are not settings: a mistyped key would otherwise be ignored, and
// the operator would never learn why the window did not change.
func readFile(path, source string) (*viper.Viper, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config file %s (from %s): %w", path, describe(configKey, source), unwrapPath(err))
	}
	typ := strings.TrimPrefix(filepath.Ext(path), ".")
	switch typ {
	case "":
		typ = "yaml"
	case "yaml", "yml", "json", "toml":
	default:
		return nil, fmt.Errorf("config file %s: unknown type %q: name it .yaml, .json or .toml", path, typ)
	}
	v := viper.New()
	v.SetConfigType(typ)
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	var unknown []string
	for _, k := range v.AllKeys() {
		if !isKey(k) {
			unknown = append(unknown, unknownKey(k))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, fmt.Errorf("config file %s: unknown %s; the keys are the flag names: %s",
			path, strings.Join(unknown, ", "), strings.Join(keyNames(), ", "))
	}
	return v, nil
}

func isKey(name string) bool {
	return slices.ContainsFunc(keys, func(k key) bool { return k.name == name })
}

// unknownKey names a bad key, with the key meant when the mistake is a
// common one (object_size for object-size).
func unknownKey(name string) string {
	s := fmt.Sprintf("key %q", name)
	if alt := strings.ReplaceAll(name, "_", "-"); alt != name && isKey(alt) {
		s += fmt.Sprintf(" (did you mean %q?)", alt)
	}
	return s
}

func keyNames() []string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.name
	}
	return names
}

// unwrapPath drops the path from an *fs.PathError, which the message
// around it names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
