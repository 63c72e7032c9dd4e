package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestFieldsAndSources(t *testing.T) {
	xdg := setup(t)
	path := writeFile(t, filepath.Join(xdg, "radoscp", "config.yaml"), "keyring: /etc/ceph/ceph.client.backup.keyring\nchunk: 8388608\n")
	t.Setenv("RADOSCP_WINDOW", "32")
	cfg, src := mustLoad(t, newLoader(t, "--json", "--stripe-unit=1M"))

	fields := cfg.Fields()
	if len(fields) != len(keys)+1 || fields[0].Name != "config" || fields[0].Value != path || fields[0].Source != "default" {
		t.Fatalf("fields start %+v, %d of them", fields[0], len(fields))
	}
	got := map[string]Field{}
	for i, f := range fields[1:] {
		if f.Name != keys[i].name {
			t.Errorf("field %d is %s, want %s: fields follow the flags", i+1, f.Name, keys[i].name)
		}
		if f.Source != src[f.Name] {
			t.Errorf("field %s from %q but Sources says %q", f.Name, f.Source, src[f.Name])
		}
		got[f.Name] = f
	}
	for name, want := range map[string]Field{
		"keyring":      {"keyring", "/etc/ceph/ceph.client.backup.keyring", "file:" + path},
		"chunk":        {"chunk", "8M", "file:" + path},
		"window":       {"window", "32", "env:RADOSCP_WINDOW"},
		"json":         {"json", "true", "flag"},
		"stripe-unit":  {"stripe-unit", "1M", "flag"},
		"object-size":  {"object-size", "4M", "default"},
		"op-timeout":   {"op-timeout", "0s", "default"},
		"progress":     {"progress", "auto", "default"},
		"conf":         {"conf", "", "default"},
		"stripe-count": {"stripe-count", "1", "default"},
	} {
		if got[name] != want {
			t.Errorf("field %+v, want %+v", got[name], want)
		}
	}

	// Sources is the caller's to keep: changing it changes nothing.
	src["window"] = "tampered"
	if cfg.Fields()[1+indexOf("window")].Source != "env:RADOSCP_WINDOW" {
		t.Error("Sources shares its map with the Config")
	}
}

// Every field's value reads back through the flag it came from.
func TestFieldsRoundTrip(t *testing.T) {
	setup(t)
	cfg, _ := mustLoad(t, newLoader(t, "--chunk=3M", "--op-timeout=90s", "--object-size=12345", "--conf=/c"))
	var args []string
	for _, f := range cfg.Fields()[1:] {
		args = append(args, "--"+f.Name+"="+f.Value)
	}
	again, _ := mustLoad(t, newLoader(t, args...))
	again.sources, cfg.sources = nil, nil
	if !reflect.DeepEqual(again, cfg) {
		t.Errorf("round trip through Fields:\n%+v\n%+v", again, cfg)
	}
}

func TestDefaultFields(t *testing.T) {
	for _, f := range Default().Fields() {
		if f.Source != "default" {
			t.Errorf("Default() field %s from %q", f.Name, f.Source)
		}
	}
}

func TestFlagsRegistered(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	Bind(fs)
	for _, name := range []string{"config", "conf", "id", "name", "keyring", "connect-timeout", "op-timeout",
		"window", "max-window", "chunk", "object-size", "stripe-unit", "stripe-count", "json", "progress",
		"metrics-addr", "metrics-textfile", "offload-only", "pin-source"} {
		f := fs.Lookup(name)
		if f == nil {
			t.Errorf("no --%s", name)
			continue
		}
		if f.Usage == "" {
			t.Errorf("--%s has no help", name)
		}
		if name != "config" && !strings.Contains(f.Usage, envName(name)) {
			t.Errorf("--%s help does not name %s", name, envName(name))
		}
	}
	for short, name := range map[string]string{"c": "conf", "n": "name", "k": "keyring"} {
		if f := fs.ShorthandLookup(short); f == nil || f.Name != name {
			t.Errorf("-%s is not --%s", short, name)
		}
	}
	if def := fs.Lookup("chunk").DefValue; def != "4M" {
		t.Errorf("--chunk default shown as %q", def)
	}
	if typ := fs.Lookup("chunk").Value.Type(); typ != "size" {
		t.Errorf("--chunk takes a %q", typ)
	}
}

func indexOf(name string) int {
	for i, k := range keys {
		if k.name == name {
			return i
		}
	}
	return -1
}
