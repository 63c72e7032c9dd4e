package main

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
	"github.com/radoscp/radoscp/truncate"
)

// A copy paused past its lock's lease (SIGSTOP, as a frozen VM or a
// stopped process) while another copy takes the lock and replaces the
// destination writes nothing when it resumes: no copy, no striper.size,
// no cut-back. It exits 1 saying it lost its lock, and the destination is
// exactly the other copy's, as `rados --striper get` and the object list
// show. The paused copy runs on the slow client, to be caught mid-copy;
// the other copy on the normal and the slow one.
func TestE2EPausedCopyWritesNothingAfterItsLease(t *testing.T) {
	conf := test.Conf(t)
	slow := test.SlowConf(t, 0.5)
	srcA, dataA := makeStriperSource(t, conf, "radoscp-a", 10*oneMiB+4321)
	srcB, dataB := makeStriperSource(t, conf, "radoscp-a", 3*oneMiB+5)
	for _, c := range confs(t, conf) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each waits out a lease
			dst := test.UniqueName(t)
			t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
			r1 := startCmd(t, nil, "cp", "-c", slow, "--window", "1", "--object-size", "1M", "--no-progress",
				"striper:radoscp-a/"+srcA, "striper:radoscp-b/"+dst)
			waitFor(t, r1, time.Minute, "a published checkpoint", func() bool {
				return striperSize(t, conf, "radoscp-b", dst) > 0
			})
			if err := r1.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r1.cmd.Process.Signal(syscall.SIGCONT) })
			pausedAt := checkPublishedPrefix(t, conf, "radoscp-b", dst, dataA)
			if pausedAt == 0 || pausedAt >= uint64(len(dataA)) {
				t.Fatalf("paused at %d of %d bytes: not mid-copy", pausedAt, len(dataA))
			}
			paused := time.Now()
			waitFor(t, nil, 2*truncate.LockDuration, "the paused copy's lock to expire", func() bool {
				return len(copyLockHolders(t, conf, "radoscp-b", dst+".0000000000000000")) == 0
			})
			t.Logf("the lock expired %s after the pause", time.Since(paused).Round(time.Second))
			r2 := runCmd(t, nil, "cp", "-c", c.conf, "--object-size", "1M", "--no-progress",
				"striper:radoscp-a/"+srcB, "striper:radoscp-b/"+dst)
			if r2.code != 0 {
				t.Fatalf("the second copy, once the lock expired: exit %d: %s", r2.code, r2.stderr)
			}
			wantStriper(t, conf, dst, dataB)
			before := objectSizes(t, conf, "radoscp-b", dst)

			if err := r1.cmd.Process.Signal(syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
			res := r1.wait(t, 2*time.Minute)
			if res.code != 1 || !strings.Contains(res.stderr, "lost the copy's lock") || !strings.Contains(res.stderr, "was this process paused") {
				t.Fatalf("the resumed copy: exit %d, want 1 saying it lost its lock: %s", res.code, res.stderr)
			}
			wantStriper(t, conf, dst, dataB)
			if after := objectSizes(t, conf, "radoscp-b", dst); !slices.Equal(after, before) {
				t.Errorf("the resumed copy changed the destination's objects:\nbefore %q\nafter  %q", before, after)
			}
			if h := copyLockHolders(t, conf, "radoscp-b", dst+".0000000000000000"); len(h) > 0 {
				t.Errorf("lock held after both copies: %q", h)
			}
		})
	}
}

// objectSizes lists striped object name's objects with their sizes, as
// `rados stat` reads them.
func objectSizes(t *testing.T, conf, pool, name string) []string {
	t.Helper()
	var out []string
	for _, o := range striperObjects(t, conf, pool, name) {
		b, err := exec.Command("rados", "-c", conf, "-p", pool, "stat", o).CombinedOutput()
		if err != nil {
			t.Fatalf("rados stat %s: %v: %s", o, err, b)
		}
		_, size, _ := strings.Cut(strings.TrimSpace(string(b)), " size ")
		out = append(out, fmt.Sprintf("%s %s", o, size))
	}
	slices.Sort(out)
	return out
}
