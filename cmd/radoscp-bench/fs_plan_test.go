package main

import (
	"strings"
	"testing"
	"time"

	"github.com/radoscp/radoscp/config"
)

func TestFSContenderRoundTrip(t *testing.T) {
	for _, s := range []string{"clone:1", "clone:4", "fscopy:1:16", "fscopy:4:auto"} {
		c, err := parseContender(s)
		if err != nil || c.String() != s {
			t.Errorf("%q: parsed %+v (%q), %v", s, c, c.String(), err)
		}
	}
	for _, tc := range []struct{ in, says string }{
		{"clone", "clone:FILES"},
		{"clone:0", "FILES a whole number"},
		{"clone:1:2", "expected clone:FILES"},
		{"fscopy:2", "fscopy:FILES:WINDOW"},
		{"fscopy:2:0", "WINDOW a whole number"},
		{"fscopy:x:4", "FILES a whole number"},
	} {
		if _, err := parseContender(tc.in); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.says)
		}
	}
}

func TestFSBenchPlan(t *testing.T) {
	f := benchFlags{scenario: "cephfs", repeat: 1}
	if err := applyScenario(&f, nil, func(string) bool { return false }); err != nil {
		t.Fatal(err)
	}
	f.filesAtOnce = "1,4"
	p, err := parseBench(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range p.contenders {
		got = append(got, c.String())
	}
	want := "clone:1 clone:4 fscopy:1:1 fscopy:1:16 fscopy:4:1 fscopy:4:16 fscopy:1:auto fscopy:4:auto"
	if strings.Join(got, " ") != want || p.objectSize != 32<<20 || f.sourceFiles != 8 {
		t.Errorf("contenders %q, file size %d, files %d; want %q, 32 MiB, 8", got, p.objectSize, f.sourceFiles, want)
	}
}

func TestFSFlagsOnlyForFSScenario(t *testing.T) {
	changed := func(name string) bool { return name == "file-size" }
	if err := onlyForFSScenario(benchFlags{}, changed); err == nil || !strings.Contains(err.Error(), "--file-size applies to --scenario cephfs, smallfiles, smallfiles-2ms and tree only") {
		t.Errorf("object scenario with --file-size: %v", err)
	}
	if err := onlyForFSScenario(benchFlags{cephfs: true}, changed); err != nil {
		t.Errorf("cephfs scenario with --file-size: %v", err)
	}
	// The tree scenarios have fixed contenders and their own source.
	for _, tc := range []struct {
		f           benchFlags
		flag, error string
	}{
		{benchFlags{scenario: "smallfiles-2ms", cephfs: true, tree: "smallfiles"}, "file-size", "--file-size does not apply to --scenario smallfiles-2ms"},
		{benchFlags{scenario: "tree", cephfs: true, tree: "tree"}, "modes", "--modes does not apply to --scenario tree"},
		{benchFlags{scenario: "tree", cephfs: true, tree: "tree"}, "source-files", "--source-files does not apply to --scenario tree"},
		{benchFlags{cephfs: true}, "tree-source", "--tree-source applies to --scenario smallfiles, smallfiles-2ms and tree only"},
		{benchFlags{}, "keep-copies", "--keep-copies applies to --scenario cephfs, smallfiles, smallfiles-2ms and tree only"},
	} {
		err := onlyForFSScenario(tc.f, func(name string) bool { return name == tc.flag })
		if err == nil || !strings.Contains(err.Error(), tc.error) {
			t.Errorf("%+v with --%s: %v; want %q", tc.f, tc.flag, err, tc.error)
		}
	}
	if err := onlyForFSScenario(benchFlags{cephfs: true, tree: "smallfiles"}, func(name string) bool { return name == "source-files" }); err != nil {
		t.Errorf("smallfiles with --source-files: %v", err)
	}
}

// smallfiles-2ms is the small-file issue's table: 1,000 generated files,
// the MDS's and the OSDs' replies delayed up to 2 ms; flags given win.
func TestSmallFilesBehindANetwork(t *testing.T) {
	none := func(string) bool { return false }
	f := benchFlags{scenario: "smallfiles-2ms", injectDelayType: "osd"}
	if err := applyScenario(&f, &config.Config{}, none); err != nil {
		t.Fatal(err)
	}
	if f.tree != "smallfiles" || !f.cephfs || f.sourceFiles != 1000 || f.injectDelay != 2*time.Millisecond || f.injectDelayType != "mds osd" {
		t.Errorf("smallfiles-2ms: tree %q cephfs %t files %d delay %v type %q; want smallfiles, true, 1000, 2ms, \"mds osd\"",
			f.tree, f.cephfs, f.sourceFiles, f.injectDelay, f.injectDelayType)
	}
	f = benchFlags{scenario: "smallfiles-2ms", injectDelayType: "osd", injectDelay: time.Millisecond}
	given := func(name string) bool { return name == "inject-delay-type" || name == "inject-osd-delay" }
	if err := applyScenario(&f, &config.Config{}, given); err != nil {
		t.Fatal(err)
	}
	if f.injectDelay != time.Millisecond || f.injectDelayType != "osd" {
		t.Errorf("given --inject-osd-delay 1ms --inject-delay-type osd: got %v %q", f.injectDelay, f.injectDelayType)
	}
	f = benchFlags{scenario: "smallfiles"}
	if err := applyScenario(&f, &config.Config{}, none); err != nil || f.injectDelay != 0 || f.sourceFiles != 5000 {
		t.Errorf("smallfiles: delay %v files %d (%v); want none and 5000", f.injectDelay, f.sourceFiles, err)
	}
}
