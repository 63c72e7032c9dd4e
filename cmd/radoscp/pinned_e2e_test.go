package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// A pinned copy (the default) whose source object is rewritten after
// every pin is in and before that object is copied fails, naming the
// object, with exit 3: what it published is the objects before it, equal
// to the source as it was, and nothing of the rewritten object or after
// it is left. The writer is the rados CLI and the copy is read back with
// rados get. On librados the pins go out asynchronously
// (Pool.StatAsync), the path every rados: copy takes. A normal client
// slowed by --max-rate, and one whose OSD replies come up to 0.5 s late.
func TestE2EPinnedSourceRewrittenMidCopy(t *testing.T) {
	const n, watched, rewritten = 32, 8, 24
	conf := test.Conf(t)
	for _, c := range []struct {
		name, conf string
		flags      []string
	}{
		{"normal", conf, []string{"--window", "1", "--max-rate", "8M"}},
		{"slow", test.SlowConf(t, 0.5), []string{"--window", "4"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, dst := test.UniqueName(t), test.UniqueName(t)
			a, b := test.OpenPool(t, conf, "radoscp-a"), test.OpenPool(t, conf, "radoscp-b")
			data := writeObjects(t, a, src, n, oneMiB)
			cleanupObjects(t, b, dst, n)
			args := append([]string{"cp", "-c", c.conf, "--object-size", "1M", "--length", "32M", "--json", "--no-progress",
				"--log-level", "debug"}, c.flags...)
			run := startCmd(t, nil, append(args, "rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)...)
			waitFor(t, run, time.Minute, "every pin in", func() bool { return strings.Contains(run.log.String(), `msg="pins in"`) })
			waitFor(t, run, time.Minute, "object "+objName(dst, watched)+" copied", func() bool {
				_, err := b.Stat(objName(dst, watched))
				return err == nil
			})
			newData := bytes.Repeat([]byte{0xee}, oneMiB)
			file := filepath.Join(t.TempDir(), "new")
			if err := os.WriteFile(file, newData, 0o600); err != nil {
				t.Fatal(err)
			}
			test.Run(t, "rados", "-c", conf, "-p", "radoscp-a", "put", objName(src, rewritten), file)
			if !run.running() {
				t.Fatal("the copy ended before the source was rewritten: the case is void")
			}
			r := run.wait(t, 2*time.Minute)
			if r.code != exitPartial {
				t.Fatalf("exit %d, want %d (a prefix published, then the change)\nstdout: %s\nstderr: %s", r.code, exitPartial, r.stdout, r.stderr)
			}
			ref := "radoscp-a/" + objName(src, rewritten)
			if !strings.Contains(r.stderr, "source changed during the copy") || !strings.Contains(r.stderr, ref) {
				t.Fatalf("the error does not name the changed object %s:\n%s", ref, r.stderr)
			}
			j := parseJSON(t, r)
			eof, _ := j["published_eof"].(float64)
			if eof < watched*oneMiB || eof > rewritten*oneMiB {
				t.Fatalf("published EOF %v: want from %d (object %d was seen copied) to %d (the rewritten object's start)", j["published_eof"], watched*oneMiB, watched, rewritten*oneMiB)
			}
			for i := 0; i < n; i++ {
				got := radosGet(t, conf, "radoscp-b", "", objName(dst, i), false)
				switch {
				case i < int(eof)/oneMiB:
					test.Equal(t, "published "+objName(dst, i), got, data[i])
				case got != nil:
					t.Errorf("%s (%d bytes) is past the published EOF %v", objName(dst, i), len(got), eof)
				}
			}
		})
	}
}
