package main

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// --max-rate holds a copy to its rate on the real cluster: the copy takes
// at least what the rate gives for the bytes past the first burst (a lower
// bound, which a slow machine cannot break), and is byte-exact; a tree
// copy shares one limit among the files it copies at once.
func TestE2EMaxRate(t *testing.T) {
	conf := test.Conf(t)
	name, data := makeStriperSource(t, conf, "radoscp-a", 8<<20)
	dst := test.UniqueName(t)
	t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
	r := runCmd(t, nil, "cp", "-c", conf, "--object-size", "1M", "--max-rate", "2M", "--json", "--no-progress",
		"striper:radoscp-a/"+name, "striper:radoscp-b/"+dst)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var res struct {
		Bytes   uint64  `json:"bytes"`
		Elapsed float64 `json:"elapsed_seconds"`
	}
	json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &res)
	// 8 MiB at 2 MiB/s with a 1 MiB burst: 3.5 s at least.
	if res.Bytes != uint64(len(data)) || res.Elapsed < 3.5*0.95 {
		t.Fatalf("copied %d bytes in %.2fs under --max-rate 2M; want %d bytes in 3.5 s or more", res.Bytes, res.Elapsed, len(data))
	}
	t.Logf("8 MiB under --max-rate 2M: %.2f s, %.2f MiB/s", res.Elapsed, float64(res.Bytes)/res.Elapsed/(1<<20))
	_, got := striperRead(t, conf, "radoscp-b", dst)
	test.Equal(t, "rate-limited copy", got, data)

	e := newFSEnv(t)
	e.m.MakeDir(e.path("src"), 0o755)
	e.write(t, "src/a", test.RandomData(71, 6<<20))
	e.write(t, "src/b", test.RandomData(72, 6<<20))
	start := time.Now()
	r = runCmd(t, nil, "cp", "-r", "-c", e.conf, "--files", "2", "--max-rate", "4M", "--no-progress", "cephfs:"+e.path("src"), "cephfs:"+e.path("dst"))
	elapsed := time.Since(start)
	if r.code != 0 {
		t.Fatalf("cp -r: exit %d\n%s", r.code, r.stderr)
	}
	// 12 MiB at 4 MiB/s, shared by both files, with a 1 MiB burst.
	if elapsed < time.Duration(2.75*0.95*float64(time.Second)) {
		t.Fatalf("12 MiB in two files at once under --max-rate 4M took %s: the files did not share the limit", elapsed)
	}
	for _, f := range []string{"a", "b"} {
		a, _ := e.read(t, "src/"+f)
		b, _ := e.read(t, "dst/"+f)
		test.Equal(t, f, b, a)
	}
}

var checkpointLine = regexp.MustCompile(`msg=checkpoint eof=(\d+)\n`)

// checkpointEOFs are the EOFs a run's debug log says it checkpointed, in
// order.
func checkpointEOFs(log string) []uint64 {
	var eofs []uint64
	for _, m := range checkpointLine.FindAllStringSubmatch(log, -1) {
		n, _ := strconv.ParseUint(m[1], 10, 64)
		eofs = append(eofs, n)
	}
	return eofs
}

// Under --max-rate the checkpoints keep pace with the copies: a striped
// copy of 12 objects of 1 MiB at 1 MiB/s (fewer objects than the window,
// so it never fills) checkpoints about once a second while it runs.
// Killed with -9 after its third checkpoint, the destination's
// striper.size (read with the rados CLI) is at least that EOF, and
// --resume completes the copy byte for byte. Before, completions were
// handed back only once every submission had passed the throttle: no
// checkpoint until the copy's end, so a kill after a few seconds left
// size 0 and a resume started over. Normal and slow client.
func TestE2EMaxRateCheckpoints(t *testing.T) {
	conf := test.Conf(t)
	const size = 12 << 20
	name, data := makeStriperSource(t, conf, "radoscp-a", size)
	for _, c := range confs(t, conf) {
		t.Run(c.name, func(t *testing.T) {
			dst := test.UniqueName(t)
			t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
			args := []string{"cp", "-c", c.conf, "--object-size", "1M", "--max-rate", "1M", "--log-level", "debug", "--no-progress",
				"striper:radoscp-a/" + name, "striper:radoscp-b/" + dst}
			run := startCmd(t, nil, args...)
			var eofs []uint64
			for deadline := time.Now().Add(2 * time.Minute); len(eofs) < 3 && run.running() && time.Now().Before(deadline); {
				time.Sleep(50 * time.Millisecond)
				eofs = checkpointEOFs(run.log.String())
			}
			if len(eofs) < 3 || eofs[2] == 0 || eofs[2] >= size {
				t.Fatalf("checkpoints %v while the copy ran (want three below %d)\n%s", eofs, size, run.log.String())
			}
			_ = run.cmd.Process.Kill()
			r := run.wait(t, time.Minute)
			if r.code != -int(syscall.SIGKILL) {
				t.Fatalf("the copy ended before the kill: exit %d", r.code)
			}
			if got := striperSize(t, conf, "radoscp-b", dst); got < eofs[2] || got >= size {
				t.Fatalf("after kill -9: striper.size %d, want at least the third checkpoint's %d and less than %d", got, eofs[2], size)
			}
			r = runCmd(t, nil, append([]string{"cp", "--resume"}, args[1:]...)...)
			if r.code != 0 {
				t.Fatalf("--resume: exit %d\n%s", r.code, r.stderr)
			}
			_, got := striperRead(t, conf, "radoscp-b", dst)
			test.Equal(t, "resumed rate-limited copy", got, data)
		})
	}
}
