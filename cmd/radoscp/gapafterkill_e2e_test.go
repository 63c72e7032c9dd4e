package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/radoscp/radoscp/test"
)

// A copy killed (kill -9) while its objects run ahead of striper.size
// leaves them, unpublished, with a record saying how far it wrote. A later
// range copy starting past the EOF publishes a larger size without writing
// the gap [EOF, --dst-offset): that gap must read as zeros (a hole), not as
// the killed copy's unpublished bytes. Fast and slow client for the range
// copy; read back with `rados --striper get`, the proof with rados ls and
// getxattr.
func TestE2ERangePastEOFAfterKillReadsZeros(t *testing.T) {
	conf := test.Conf(t)
	big, bigData := makeStriperSource(t, conf, "radoscp-a", 8<<20)
	small, smallData := makeStriperSource(t, conf, "radoscp-a", oneMiB)
	for _, c := range confs(t, conf) {
		t.Run(c.name, func(t *testing.T) {
			dst := test.UniqueName(t)
			t.Cleanup(func() { removeStriper(t, conf, "radoscp-b", dst) })
			run := startCmd(t, nil, "cp", "-c", conf, "--no-progress", "--window", "4", "--max-rate", "1M", "--object-size", "1M",
				"striper:radoscp-a/"+big, "striper:radoscp-b/"+dst)
			// An object wholly past the published EOF, written but
			// not published: kill then.
			var eof uint64
			unpublished := func() []int {
				var past []int
				for _, o := range striperObjects(t, conf, "radoscp-b", dst) {
					n, _ := strconv.ParseUint(o[len(dst)+1:], 16, 64)
					if n*oneMiB >= eof && eof > 0 {
						past = append(past, int(n))
					}
				}
				return past
			}
			waitFor(t, run, 30*time.Second, "an object past the published EOF", func() bool {
				eof = striperSize(t, conf, "radoscp-b", dst)
				return len(unpublished()) > 0
			})
			run.cmd.Process.Kill()
			if r := run.wait(t, 10*time.Second); r.code != -9 {
				t.Fatalf("the copy was not killed mid-copy: exit %d: %s", r.code, r.stderr)
			}
			eof = checkPublishedPrefix(t, conf, "radoscp-b", dst, bigData)
			past := unpublished()
			if eof == 0 || eof >= 8<<20 || len(past) == 0 {
				t.Fatalf("after the kill: EOF %d, objects past it %v: want part published and objects past it", eof, past)
			}
			rec, err := test.RadosCLI(conf, "-p", "radoscp-b", "getxattr", dst+".0000000000000000", "radoscp.source")
			if err != nil || !strings.Contains(string(rec), `"dirty":`) {
				t.Fatalf("the killed copy left no record: %s, %v", rec, err)
			}

			r := runCmd(t, nil, "cp", "-c", c.conf, "--no-progress", "--dst-offset", "10M", "--length", "1M",
				"striper:radoscp-a/"+small, "striper:radoscp-b/"+dst)
			if r.code != 0 {
				t.Fatalf("range copy past EOF: exit %d: %s", r.code, r.stderr)
			}
			size, got := striperRead(t, conf, "radoscp-b", dst)
			want := make([]byte, 11<<20)
			copy(want, bigData[:eof])
			copy(want[10<<20:], smallData)
			if size != uint64(len(want)) {
				t.Fatalf("size %d, want %d", size, len(want))
			}
			if !bytes.Equal(got, want) {
				at := firstDiff(got, want)
				t.Fatalf("the destination differs at %d (EOF before %d, objects past it %v): %s", at, eof, past,
					map[bool]string{true: "the killed copy's unpublished bytes were published", false: "outside the gap"}[uint64(at) >= eof && at < 10<<20])
			}
			if out, err := test.RadosCLI(conf, "-p", "radoscp-b", "getxattr", dst+".0000000000000000", "radoscp.source"); err == nil {
				t.Fatalf("a record was left: %s", out)
			}
		})
	}
}
