package main

import (
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// A tree copy interrupted (SIGINT) in the middle of a file, OSD replies
// slow: the file is reported interrupted (text and JSON), not failed
// with Go's words; the last progress frame shows what was copied, not
// 100%; the run exits 3 and prints the command that continues it, which,
// run as printed (on the normal client, then the slow one), finishes the
// copy exact (diff -r and rsync through ceph-fuse).
func TestE2EInterruptedTreeCopy(t *testing.T) {
	e := newSlowEnv(t, 1.0)
	e.m.MakeDir(e.path("src"), 0o755)
	e.write(t, "src/big", test.RandomData(91, 24<<20))
	e.write(t, "src/small", []byte("small"))
	for _, c := range e.clients() {
		t.Run(c.name, func(t *testing.T) {
			dst := "dst-" + c.name
			args := []string{"cp", "-c", e.slow, "-r", "--window", "1", "--files", "1", "--progress", "on", "--log-level", "debug"}
			asJSON := c.name == "slow"
			if asJSON {
				args = append(args, "--json")
			}
			run := startCmd(t, nil, append(args, "cephfs:"+e.path("src")+"/", "cephfs:"+e.path(dst))...)
			waitFor(t, run, 2*time.Minute, "a checkpoint", func() bool { return strings.Contains(run.log.String(), "msg=checkpoint") })
			run.cmd.Process.Signal(syscall.SIGINT)
			r := run.wait(t, 2*time.Minute)
			cont := regexp.MustCompile(`continue with: (radoscp cp --resume [^\n]*)`).FindStringSubmatch(r.stderr)
			if r.code != 3 || cont == nil || strings.Contains(r.stderr+r.stdout, "context canceled") || strings.Contains(r.stderr+r.stdout, "window: stopped") {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s\nwant 3, a continue-with line and no Go words", r.code, r.stdout, r.stderr)
			}
			if asJSON {
				found := false
				for _, l := range jsonLines(t, r) {
					if l["src"] == e.path("src/big") {
						found = l["outcome"] == "interrupted"
					}
					if l["summary"] == true && l["interrupted"] != 1.0 {
						t.Errorf("summary %v: want 1 interrupted", l)
					}
				}
				if !found {
					t.Fatalf("src/big is not reported interrupted\n%s", r.stdout)
				}
			} else if !strings.Contains(r.stderr, "radoscp: interrupted "+e.path("src/big")+" after ") || !strings.Contains(r.stdout, ", 1 interrupted") {
				t.Fatalf("no interrupted line for src/big, or none counted\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
			}
			if f := finalFrame(t, r.stderr); f == "" || strings.Contains(f, "100.0%") || !strings.Contains(f, "/24.0MiB") {
				t.Fatalf("last progress frame %q: want what was copied of 24.0MiB, not 100%%", f)
			}
			words := strings.Fields(cont[1])
			if words[3] != "-c" {
				t.Fatalf("continue-with line %q: want radoscp cp --resume -c CONF ...", cont[1])
			}
			words[4] = c.conf // continue on this subtest's client
			rr := runCmd(t, nil, words[1:]...)
			if rr.code != 0 {
				t.Fatalf("%s: exit %d\n%s", cont[1], rr.code, rr.stderr)
			}
			e.same(t, "src", dst)
		})
	}
}
