package main

import (
	"encoding/json"
	"strings"
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
