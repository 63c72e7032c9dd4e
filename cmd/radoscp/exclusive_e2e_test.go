package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// End-to-end tests of a copy owning its destination (the copy lock),
// whole copies replacing what is there, and --resume checking what it
// resumes. Every outcome is read back with the rados CLI, not radoscp.

func pidCookie(pid int) string { return "/" + strconv.Itoa(pid) + "/" }

func holdsCookieOf(cookies []string, pid int) bool {
	for _, c := range cookies {
		if strings.Contains(c, pidCookie(pid)) {
			return true
		}
	}
	return false
}

func wantStriper(t *testing.T, conf, name string, want []byte) {
	t.Helper()
	size, got := striperRead(t, conf, "radoscp-b", name)
	if size != uint64(len(want)) || !bytes.Equal(got, want) {
		t.Fatalf("%s: size %d, want %d; bytes equal: %v (first difference at %d)", name, size, len(want), bytes.Equal(got, want), firstDiff(got, want))
	}
	checkNoObjectsPastEOF(t, conf, "radoscp-b", name, size)
}

// Two copies into one striped object: the one that finds the other's lock
// exits 1 naming it and writes nothing; the destination is exactly the
// winner's source.
func TestE2EConcurrentCopiesOneWins(t *testing.T) {
	conf := test.Conf(t)
	slow := test.SlowConf(t, 0.5)
	srcA, dataA := makeStriperSource(t, conf, "radoscp-a", 12*oneMiB+777)
	srcB, dataB := makeStriperSource(t, conf, "radoscp-a", 3*oneMiB+5)
	cp := func(conf, src, dst string) []string {
		return []string{"cp", "-c", conf, "--window", "2", "--object-size", "1M", "--no-progress",
			"striper:radoscp-a/" + src, "striper:radoscp-b/" + dst}
	}
	for _, c := range confs(t, conf) {
		t.Run("second-finds-the-lock-"+c.name, func(t *testing.T) {
			dst := test.UniqueName(t)
			t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
			r1 := startCmd(t, nil, cp(slow, srcA, dst)...)
			pid := r1.cmd.Process.Pid
			waitFor(t, r1, time.Minute, "copy lock held by run 1", func() bool {
				return holdsCookieOf(copyLockHolders(t, conf, "radoscp-b", dst+".0000000000000000"), pid)
			})
			before := striperSize(t, conf, "radoscp-b", dst)
			r2 := runCmd(t, nil, cp(c.conf, srcB, dst)...)
			if !r1.running() {
				t.Fatalf("run 1 ended before run 2 did: the runs did not overlap (run 2: exit %d %s)", r2.code, r2.stderr)
			}
			if r2.code != 1 || !strings.Contains(r2.stderr, fmt.Sprintf("being copied into by radoscp pid %d", pid)) ||
				!strings.Contains(r2.stderr, "striper:radoscp-b/"+dst) {
				t.Fatalf("run 2: exit %d, want 1 naming pid %d and the destination: %s", r2.code, pid, r2.stderr)
			}
			if after := striperSize(t, conf, "radoscp-b", dst); after < before {
				t.Errorf("striper.size went from %d to %d while run 2 ran", before, after)
			}
			if res := r1.wait(t, 3*time.Minute); res.code != 0 {
				t.Fatalf("run 1: exit %d: %s", res.code, res.stderr)
			}
			wantStriper(t, conf, dst, dataA)
			if h := copyLockHolders(t, conf, "radoscp-b", dst+".0000000000000000"); len(h) > 0 {
				t.Errorf("lock still held after both runs: %q", h)
			}
		})
	}
	t.Run("started-together", func(t *testing.T) {
		dst := test.UniqueName(t)
		t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
		ra := startCmd(t, nil, cp(slow, srcA, dst)...)
		rb := startCmd(t, nil, cp(slow, srcB, dst)...)
		a, b := ra.wait(t, 3*time.Minute), rb.wait(t, 3*time.Minute)
		t.Logf("A: exit %d %s; B: exit %d %s", a.code, a.stderr, b.code, b.stderr)
		switch {
		case a.code == 0 && b.code == 1:
			if !strings.Contains(b.stderr, fmt.Sprintf("radoscp pid %d", ra.cmd.Process.Pid)) {
				t.Errorf("the loser does not name the winner: %s", b.stderr)
			}
			wantStriper(t, conf, dst, dataA)
		case b.code == 0 && a.code == 1:
			if !strings.Contains(a.stderr, fmt.Sprintf("radoscp pid %d", rb.cmd.Process.Pid)) {
				t.Errorf("the loser does not name the winner: %s", a.stderr)
			}
			wantStriper(t, conf, dst, dataB)
		default:
			t.Fatalf("exits %d and %d, want one 0 and one 1", a.code, b.code)
		}
	})
}

// A copy killed mid-copy leaves its lock; a rerun on this host finds the
// holder's pid gone, breaks the lock, takes it over and finishes the copy.
func TestE2EKilledCopyLockTakenOver(t *testing.T) {
	conf := test.Conf(t)
	slow := test.SlowConf(t, 0.5)
	src, data := makeStriperSource(t, conf, "radoscp-a", 10*oneMiB+4321)
	for _, c := range confs(t, conf) {
		for _, resume := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s-resume=%v", c.name, resume), func(t *testing.T) {
				dst := test.UniqueName(t)
				t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
				args := []string{"cp", "-c", slow, "--window", "1", "--object-size", "1M", "--no-progress",
					"striper:radoscp-a/" + src, "striper:radoscp-b/" + dst}
				r1 := startCmd(t, nil, args...)
				pid := r1.cmd.Process.Pid
				// Mid-copy: part of it is published (a checkpoint), not all.
				waitFor(t, r1, time.Minute, "a published checkpoint", func() bool {
					return striperSize(t, conf, "radoscp-b", dst) > 0
				})
				r1.cmd.Process.Signal(syscall.SIGKILL)
				if r := r1.wait(t, hangGuard); r.code != -int(syscall.SIGKILL) {
					t.Fatalf("run 1 was not killed mid-copy: exit %d", r.code)
				}
				killedAt := checkPublishedPrefix(t, conf, "radoscp-b", dst, data)
				if killedAt == 0 || killedAt >= uint64(len(data)) {
					t.Fatalf("killed at %d of %d bytes: not mid-copy", killedAt, len(data))
				}
				if h := copyLockHolders(t, conf, "radoscp-b", dst+".0000000000000000"); !holdsCookieOf(h, pid) {
					t.Fatalf("the killed copy's lock is not there: %q", h)
				}
				rerun := append([]string{"cp", "-c", c.conf}, args[3:]...)
				if resume {
					rerun = append(rerun, "--resume")
				}
				r2 := runCmd(t, nil, rerun...)
				if r2.code != 0 {
					t.Fatalf("rerun: exit %d: %s", r2.code, r2.stderr)
				}
				if !strings.Contains(r2.stderr, fmt.Sprintf("took over the lock of a copy that is gone (radoscp pid %d", pid)) {
					t.Errorf("rerun does not say it took over pid %d's lock: %s", pid, r2.stderr)
				}
				wantStriper(t, conf, dst, data)
				if h := copyLockHolders(t, conf, "radoscp-b", dst+".0000000000000000"); len(h) > 0 {
					t.Errorf("lock still held after the rerun: %q", h)
				}
				if out, err := exec.Command("rados", "-c", conf, "-p", "radoscp-b", "getxattr", dst+".0000000000000000", "radoscp.source").CombinedOutput(); err == nil {
					t.Errorf("the copy's record is left after it completed: %s", out)
				}
			})
		}
	}
}

// A whole copy replaces the destination: a smaller source over a bigger
// object leaves exactly the smaller one, with the window; --no-clobber
// refuses; a range copy still writes into what is there.
func TestE2EWholeCopyReplaces(t *testing.T) {
	conf := test.Conf(t)
	big, bigData := makeStriperSource(t, conf, "radoscp-a", 30000000)
	small, smallData := makeStriperSource(t, conf, "radoscp-a", 5000000)
	for _, c := range confs(t, conf) {
		t.Run("striper-"+c.name, func(t *testing.T) {
			dst := test.UniqueName(t)
			t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
			cp := func(args ...string) result {
				return runCmd(t, nil, append([]string{"cp", "-c", c.conf, "--no-progress", "--object-size", "1M"}, args...)...)
			}
			if r := cp("striper:radoscp-a/"+big, "striper:radoscp-b/"+dst); r.code != 0 {
				t.Fatalf("big: exit %d: %s", r.code, r.stderr)
			}
			wantStriper(t, conf, dst, bigData)
			r := cp("--json", "striper:radoscp-a/"+small, "striper:radoscp-b/"+dst)
			if r.code != 0 {
				t.Fatalf("small over big: exit %d: %s", r.code, r.stderr)
			}
			m := parseJSON(t, r)
			if m["published_eof"] != float64(5000000) || m["bytes"] != float64(5000000) || m["serial"] != false || m["window"] != float64(16) {
				t.Errorf("small over big: %s", r.stdout)
			}
			wantStriper(t, conf, dst, smallData)

			r = cp("--no-clobber", "striper:radoscp-a/"+big, "striper:radoscp-b/"+dst)
			if r.code != 2 || !strings.Contains(r.stderr, "exists") || !strings.Contains(r.stderr, dst) {
				t.Errorf("--no-clobber: exit %d, want 2 naming the destination: %s", r.code, r.stderr)
			}
			wantStriper(t, conf, dst, smallData)

			// A range copy is copy_file_range: into the data, serially.
			r = cp("--json", "--dst-offset", "0", "--length", "1M", "striper:radoscp-a/"+big, "striper:radoscp-b/"+dst)
			if r.code != 0 {
				t.Fatalf("range copy: exit %d: %s", r.code, r.stderr)
			}
			if m := parseJSON(t, r); m["serial"] != true || m["published_eof"] != float64(5000000) {
				t.Errorf("range copy: %s", r.stdout)
			}
			wantStriper(t, conf, dst, append(append([]byte{}, bigData[:oneMiB]...), smallData[oneMiB:]...))
		})
		t.Run("raw-"+c.name, func(t *testing.T) {
			src, dst := test.UniqueName(t), test.UniqueName(t)
			a, b := test.OpenPool(t, conf, "radoscp-a"), test.OpenPool(t, conf, "radoscp-b")
			data := writeObjects(t, a, src, 3, oneMiB)
			writeObjects(t, b, dst, 8, oneMiB)
			r := runCmd(t, nil, "cp", "-c", c.conf, "--no-progress", "--json", "--object-size", "1M", "--length", "3M", "--dst-size", "8M",
				"rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if m := parseJSON(t, r); m["serial"] != false || m["published_eof"] != float64(3*oneMiB) {
				t.Errorf("raw whole copy over --dst-size 8M: %s", r.stdout)
			}
			assertObjects(t, b, dst, data)
			for i := 3; i < 8; i++ {
				absent(t, b, objName(dst, i))
			}
			absent(t, b, dst+".radoscp-lock")
			r = runCmd(t, nil, "cp", "-c", c.conf, "--no-progress", "--no-clobber", "--object-size", "1M", "--length", "3M",
				"rados:radoscp-a/"+src, "rados:radoscp-b/"+dst)
			if r.code != 2 || !strings.Contains(r.stderr, "exists (object radoscp-b/"+dst+".0000000") {
				t.Errorf("raw --no-clobber: exit %d, want 2 naming an existing object: %s", r.code, r.stderr)
			}
			absent(t, b, dst+".radoscp-lock")
		})
	}
}

// --resume continues only the copy it interrupted: another source, or the
// same one changed since, is refused with exit 2 and nothing is written.
func TestE2EResumeRefusesAnotherSource(t *testing.T) {
	conf := test.Conf(t)
	slow := test.SlowConf(t, 0.5)
	obj1, data1 := makeStriperSource(t, conf, "radoscp-a", 2*oneMiB+3)
	big, _ := makeStriperSource(t, conf, "radoscp-a", 10*oneMiB+11)
	for _, c := range confs(t, conf) {
		t.Run("complete-"+c.name, func(t *testing.T) {
			dst := test.UniqueName(t)
			t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
			if r := runCmd(t, nil, "cp", "-c", c.conf, "--no-progress", "striper:radoscp-a/"+obj1, "striper:radoscp-b/"+dst); r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			r := runCmd(t, nil, "cp", "-c", c.conf, "--no-progress", "--resume", "striper:radoscp-a/"+big, "striper:radoscp-b/"+dst)
			if r.code != 2 || !strings.Contains(r.stderr, "no record of an interrupted copy") {
				t.Errorf("resume from another source: exit %d, want 2: %s", r.code, r.stderr)
			}
			wantStriper(t, conf, dst, data1)
		})
		t.Run("interrupted-"+c.name, func(t *testing.T) {
			dst := test.UniqueName(t)
			t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
			// The source is changed below, so this subtest has its own.
			src, data := makeStriperSource(t, conf, "radoscp-a", 10*oneMiB+11)
			args := []string{"--object-size", "1M", "--window", "1", "--no-progress", "striper:radoscp-a/" + src, "striper:radoscp-b/" + dst}
			r1 := startCmd(t, nil, append([]string{"cp", "-c", slow}, args...)...)
			waitFor(t, r1, time.Minute, "a published checkpoint", func() bool { return striperSize(t, conf, "radoscp-b", dst) > 0 })
			r1.cmd.Process.Signal(syscall.SIGKILL)
			r1.wait(t, hangGuard)
			killedAt := checkPublishedPrefix(t, conf, "radoscp-b", dst, data)
			if killedAt == 0 || killedAt >= uint64(len(data)) {
				t.Fatalf("killed at %d of %d bytes: not mid-copy", killedAt, len(data))
			}
			unchanged := func() {
				t.Helper()
				if size := checkPublishedPrefix(t, conf, "radoscp-b", dst, data); size != killedAt {
					t.Fatalf("published size went from %d to %d", killedAt, size)
				}
			}

			r := runCmd(t, nil, "cp", "-c", c.conf, "--no-progress", "--resume", "--object-size", "1M", "striper:radoscp-a/"+big, "striper:radoscp-b/"+dst)
			if r.code != 2 || !strings.Contains(r.stderr, "interrupted copy of striper:radoscp-a/"+src) || !strings.Contains(r.stderr, "not of striper:radoscp-a/"+big) {
				t.Errorf("resume from another source: exit %d, want 2 naming both: %s", r.code, r.stderr)
			}
			unchanged()

			// Change one source object past the killed copy's EOF.
			a := test.OpenPool(t, conf, "radoscp-a")
			patch := []byte("changed")
			if err := a.Write(fmt.Sprintf("%s.%016x", src, 9), patch, 0); err != nil {
				t.Fatal(err)
			}
			copy(data[9*oneMiB:], patch)
			r = runCmd(t, nil, append([]string{"cp", "-c", c.conf, "--resume"}, args...)...)
			if r.code != 2 || !strings.Contains(r.stderr, "changed since the interrupted copy") {
				t.Errorf("resume of a changed source: exit %d, want 2: %s", r.code, r.stderr)
			}
			if size := striperSize(t, conf, "radoscp-b", dst); size != killedAt {
				t.Errorf("published size went from %d to %d", killedAt, size)
			}

			// Without --resume the copy starts over, from the source as it is.
			r = runCmd(t, nil, append([]string{"cp", "-c", c.conf}, args...)...)
			if r.code != 0 {
				t.Fatalf("fresh copy: exit %d: %s", r.code, r.stderr)
			}
			wantStriper(t, conf, dst, data)
		})
	}
}
