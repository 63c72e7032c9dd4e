package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// outputs writes one --json output per run, each a list of lines.
func outputs(t *testing.T, runs map[string][]string) []string {
	t.Helper()
	dir := t.TempDir()
	var names []string
	for name, lines := range runs {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
	}
	return names
}

func copied(dst string) string {
	return `{"schema_version":1,"src":"/s` + dst + `","dst":"` + dst + `","outcome":"copied","result":{"bytes":3}}`
}

func summary(shard string, files, failed, seen int) string {
	b, _ := json.Marshal(map[string]any{"schema_version": 1, "summary": true, "shard": shard, "files": files, "bytes": files * 3,
		"failed": failed, "seen": seen, "error": nil})
	return string(b)
}

func runReport(t *testing.T, files []string) (shardReport, error) {
	t.Helper()
	var runs []shardRun
	for _, f := range files {
		r, err := readShardRun(nil, f)
		if err != nil {
			return shardReport{}, err
		}
		runs = append(runs, r)
	}
	return mergeRuns(runs), nil
}

func TestReportMergesShards(t *testing.T) {
	files := outputs(t, map[string][]string{
		"w0":  {copied("/d/a"), copied("/d/b"), summary("0/3", 2, 0, 6)},
		"w1":  {copied("/d/c"), summary("1/3", 1, 0, 6)},
		"w2":  {copied("/d/e"), copied("/d/f"), copied("/d/g"), summary("2/3", 3, 0, 6)},
		"fin": {`{"schema_version":1,"summary":true,"shard":"finish/3","files":0,"unchanged":6,"missed":0,"changed":0,"extra":0,"error":null}`},
	})
	rep, err := runReport(t, files)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK || rep.N != 3 || len(rep.Shards) != 3 || rep.Total.Files != 6 || rep.Total.Bytes != 18 || rep.Final == nil || len(rep.Problems) != 0 {
		t.Fatalf("report %+v", rep)
	}
	var out bytes.Buffer
	rep.print(&out)
	if !strings.Contains(out.String(), "ok: 3 shards complete") || !strings.Contains(out.String(), "total") {
		t.Fatalf("printed:\n%s", out.String())
	}
}

func TestReportFindsProblems(t *testing.T) {
	for _, c := range []struct {
		name string
		runs map[string][]string
		want string
	}{
		{"missing", map[string][]string{"w0": {summary("0/3", 1, 0, 3)}, "w2": {summary("2/3", 1, 0, 3)}}, "shard 1/3 is missing"},
		{"twice", map[string][]string{"w0": {summary("0/2", 1, 0, 3)}, "a": {summary("1/2", 1, 0, 3)}, "b": {summary("1/2", 1, 0, 3)}}, "shard 1/2 is given 2 times"},
		{"failed", map[string][]string{"w0": {summary("0/2", 1, 0, 3)}, "w1": {summary("1/2", 1, 2, 3)}}, "shard 1/2"},
		{"killed", map[string][]string{"w0": {summary("0/2", 1, 0, 3)}, "w1": {copied("/d/x")}}, "ended without its summary line"},
		{"copied twice", map[string][]string{"w0": {copied("/d/x"), summary("0/2", 1, 0, 3)}, "w1": {copied("/d/x"), summary("1/2", 1, 0, 3)}}, "cephfs:/d/x was put in place by two workers"},
		{"other N", map[string][]string{"w0": {summary("0/2", 1, 0, 3)}, "w1": {summary("1/3", 1, 0, 3)}}, "other runs are of"},
		{"findings", map[string][]string{"w0": {summary("0/1", 1, 0, 3)}, "fin": {`{"schema_version":1,"summary":true,"shard":"finish","missed":1,"error":"x"}`}}, "the final pass"},
	} {
		rep, err := runReport(t, outputs(t, c.runs))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if rep.OK || !strings.Contains(strings.Join(rep.Problems, "\n"), c.want) {
			t.Errorf("%s: problems %q; want one with %q", c.name, rep.Problems, c.want)
		}
	}
	rep, _ := runReport(t, outputs(t, map[string][]string{"w0": {summary("0/2", 1, 0, 3)}, "w1": {summary("1/2", 1, 0, 4)}}))
	if !rep.OK || len(rep.Warnings) == 0 || !strings.Contains(rep.Warnings[0], "walked different trees") {
		t.Fatalf("different seen counts: %+v", rep)
	}
}

func TestReportRefusesOtherInput(t *testing.T) {
	for name, lines := range map[string][]string{
		"not json":   {"copied 3 bytes"},
		"unsharded":  {`{"schema_version":1,"summary":true,"files":1}`},
		"bad shard":  {`{"schema_version":1,"summary":true,"shard":"4/3"}`},
		"old schema": {`{"schema_version":7,"summary":true,"shard":"0/1"}`},
		"two runs":   {summary("0/2", 1, 0, 3), summary("1/2", 1, 0, 3)},
	} {
		if _, err := runReport(t, outputs(t, map[string][]string{"f": lines})); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
