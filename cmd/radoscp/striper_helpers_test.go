package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
	"github.com/radoscp/radoscp/truncate"
)

// Helpers for tests whose destination is a striped object: make a source
// with a known layout, read a destination back through `rados --striper`,
// and check what an interrupted or faulted copy left.

// makeStriperSource writes size random bytes as a striped object in pool
// with 1 MiB objects (written by radoscp from a raw object set, so its
// layout is ours and copies between such objects use copy-from), removes it
// when t ends and returns its name and content.
func makeStriperSource(t *testing.T, conf, pool string, size int) (string, []byte) {
	t.Helper()
	raw, name := test.UniqueName(t), test.UniqueName(t)
	p := test.OpenPool(t, conf, pool)
	n := (size + oneMiB - 1) / oneMiB
	objs := writeObjects(t, p, raw, n, oneMiB)
	data := bytes.Join(objs, nil)[:size]
	r := runCmd(t, nil, "cp", "-c", conf, "--object-size", "1M", "--length", strconv.Itoa(size), "--no-progress",
		"rados:"+pool+"/"+raw, "striper:"+pool+"/"+name)
	if r.code != 0 {
		t.Fatalf("making striped source: exit %d: %s", r.code, r.stderr)
	}
	t.Cleanup(func() { removeStriper(t, conf, pool, name) })
	return name, data
}

// removeStriper removes every object of striped object name, whatever
// locks a killed copy left on it (which `rados --striper rm` would wait on).
func removeStriper(t *testing.T, conf, pool, name string) {
	p := test.OpenPool(t, conf, pool)
	for _, o := range striperObjects(t, conf, pool, name) {
		p.Remove(o)
	}
}

// striperObjects lists the objects of striped object name in pool.
func striperObjects(t *testing.T, conf, pool, name string) []string {
	t.Helper()
	var objs []string
	for _, l := range listNamed(t, conf, pool, name+".") {
		_, o, _ := strings.Cut(l, "\t")
		if rest, ok := strings.CutPrefix(o, name+"."); ok && len(rest) == 16 {
			objs = append(objs, o)
		}
	}
	return objs
}

// striperRead returns striped object name's published size and its bytes
// read through `rados --striper get`; a missing object has size 0.
func striperRead(t *testing.T, conf, pool, name string) (uint64, []byte) {
	t.Helper()
	// Pacific's rados CLI sometimes aborts while shutting down after a
	// --striper command has done its work ("Resource deadlock avoided"),
	// so its output counts, not its exit status; a command that did not
	// get as far is retried.
	for attempt := 1; ; attempt++ {
		var stdout, stderr bytes.Buffer
		stat := exec.Command("rados", "-c", conf, "-p", pool, "--striper", "stat", name)
		stat.Stdout, stat.Stderr = &stdout, &stderr
		err := stat.Run()
		if err != nil && strings.Contains(stderr.String(), "No such file") {
			return 0, nil
		}
		line, _, _ := strings.Cut(stdout.String(), "\n")
		i := strings.LastIndex(line, " size ")
		if i < 0 {
			if attempt < 3 {
				continue
			}
			t.Fatalf("rados --striper stat %s: %v: %s%s", name, err, stdout.String(), stderr.String())
		}
		size, perr := strconv.ParseUint(strings.TrimSpace(line[i+6:]), 10, 64)
		if perr != nil {
			t.Fatalf("rados --striper stat %s: %q: %v", name, line, perr)
		}
		file := filepath.Join(t.TempDir(), "get")
		o, err := exec.Command("rados", "-c", conf, "-p", pool, "--striper", "get", name, file).CombinedOutput()
		got, rerr := os.ReadFile(file)
		if rerr == nil && uint64(len(got)) == size {
			return size, got
		}
		if attempt >= 3 {
			t.Fatalf("rados --striper get %s: %v, %v: %s", name, err, rerr, o)
		}
	}
}

// checkPublishedPrefix checks the promise every interrupted or faulted
// copy keeps: the destination's published bytes are the source's first
// bytes. It returns the published size.
func checkPublishedPrefix(t *testing.T, conf, pool, name string, src []byte) uint64 {
	t.Helper()
	size, got := striperRead(t, conf, pool, name)
	if size > uint64(len(src)) {
		t.Fatalf("%s: published size %d is past the source's %d", name, size, len(src))
	}
	if uint64(len(got)) != size {
		t.Fatalf("%s: read %d bytes, published size %d", name, len(got), size)
	}
	if !bytes.Equal(got, src[:size]) {
		t.Fatalf("%s: the published %d bytes differ from the source's (first difference at %d)", name, size, firstDiff(got, src))
	}
	return size
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// checkNoObjectsPastEOF checks that a finished copy left no object of
// striped object name past its EOF and none longer than its share of it:
// nothing an interrupted run wrote speculatively is left behind.
func checkNoObjectsPastEOF(t *testing.T, conf, pool, name string, eof uint64) {
	t.Helper()
	p := test.OpenPool(t, conf, pool)
	meta, err := truncate.ReadStriperMeta(p, name)
	if err != nil {
		t.Fatalf("striped object %s: %v", name, err)
	}
	l := meta.Layout
	n := l.ObjectsFor(eof)
	for _, o := range striperObjects(t, conf, pool, name) {
		no, err := strconv.ParseUint(o[len(name)+1:], 16, 64)
		if err != nil {
			t.Fatalf("object %s: %v", o, err)
		}
		if no >= n {
			t.Errorf("object %s is past EOF %d (%d objects)", o, eof, n)
			continue
		}
		st, err := p.Stat(o)
		if err != nil {
			t.Fatalf("stat %s: %v", o, err)
		}
		if want := l.ObjectLength(eof, no); st.Size > want {
			t.Errorf("object %s holds %d bytes, EOF %d gives it %d", o, st.Size, eof, want)
		}
	}
}

// bgRun is a radoscp run in the background. Its stderr is also in log,
// which a test may read while the run goes on.
type bgRun struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	log            *syncBuffer
	// done is closed once Wait has returned; err is Wait's result then.
	done chan struct{}
	err  error
}

func startCmd(t *testing.T, env []string, args ...string) *bgRun {
	t.Helper()
	r := &bgRun{cmd: exec.Command(binary, args...), done: make(chan struct{}), log: &syncBuffer{}}
	r.cmd.Env = append(os.Environ(), env...)
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, io.MultiWriter(&r.stderr, r.log)
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.err = r.cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		if r.running() {
			r.cmd.Process.Kill()
			<-r.done
		}
	})
	return r
}

// running says whether the run has not ended yet.
func (r *bgRun) running() bool {
	select {
	case <-r.done:
		return false
	default:
		return true
	}
}

// wait waits for the run to end, failing t if it has not within guard:
// the promise under test is that nothing hangs.
func (r *bgRun) wait(t *testing.T, guard time.Duration) result {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(guard):
		r.cmd.Process.Kill()
		<-r.done
		t.Fatalf("radoscp still running after %s (hung)\nstderr: %s", guard, r.stderr.String())
	}
	res := result{stdout: r.stdout.String(), stderr: r.stderr.String()}
	err := r.err
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.code = -int(ws.Signal())
		}
	default:
		t.Fatal(err)
	}
	return res
}

// delayEnv makes every OSD reply to radoscp arrive up to max seconds late,
// so a copy lasts long enough to be interrupted.
func delayEnv(max float64) []string {
	return []string{fmt.Sprintf("CEPH_ARGS=--ms_inject_delay_type=osd --ms_inject_delay_probability=1 --ms_inject_delay_max=%g", max)}
}
