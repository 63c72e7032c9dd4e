package test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SlowConf writes a client conf for the test cluster whose OSD replies all
// arrive up to maxDelay seconds late (ms inject delay, probability 1), as
// on a loaded cluster or a slow network, and returns its path. It is
// named ceph.conf in a directory of its own: the conf file's name sets
// $cluster, which the keyring path uses.
func SlowConf(t testing.TB, maxDelay float64) string {
	t.Helper()
	conf := Conf(t)
	if conf == "" {
		return ""
	}
	text, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	delay := fmt.Sprintf("[client]\nms inject delay type = osd\nms inject delay probability = 1\nms inject delay max = %g\n", maxDelay)
	s := string(text)
	if !strings.Contains(s, "[client]\n") {
		s += "\n[client]\n"
	}
	s = strings.Replace(s, "[client]\n", delay, 1)
	path := filepath.Join(t.TempDir(), "ceph.conf")
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
