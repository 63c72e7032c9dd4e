package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/radoscp/radoscp/config"
)

// cloneChunk is the chunk of the clone anchor: ceph-mgr's volumes module
// copies a subvolume clone's files by reading and writing 8 MiB at a time
// through libcephfs, one file after another (4 clones at once by default).
const cloneChunk = 8 << 20

// applyFSScenario presets a CephFS scenario; flags set explicitly win.
func applyFSScenario(f *benchFlags, sc scenario, changed func(string) bool) error {
	f.cephfs = true
	if !changed("source-files") {
		f.sourceFiles = sc.objects
	}
	if !changed("file-size") {
		f.fileSize = config.FormatBytes(sc.objectSize)
	}
	if !changed("modes") {
		f.modes = "clone,fscopy,auto"
	}
	if !changed("windows") {
		f.windows = "1,16"
	}
	return nil
}

// onlyForFSScenario refuses the cephfs scenario's flags in the others.
func onlyForFSScenario(f benchFlags, changed func(string) bool) error {
	if f.cephfs {
		return onlyForTreeScenarios(f, changed)
	}
	for _, name := range []string{"source-files", "file-size", "files-at-once", "fs", "fs-dir", "tree-source", "keep-copies"} {
		if changed(name) {
			return fmt.Errorf("--%s applies to --scenario cephfs, smallfiles, smallfiles-2ms and tree only", name)
		}
	}
	return nil
}

// parseFSContender reads clone:FILES, fscopy:FILES:WINDOW and
// fscopy:FILES:auto.
func parseFSContender(s, mode, rest string) (contender, error) {
	c := contender{Mode: mode}
	form := "clone:FILES"
	files, w, hasW := strings.Cut(rest, ":")
	if mode == "fscopy" {
		form = "fscopy:FILES:WINDOW or fscopy:FILES:auto"
		if !hasW {
			return c, fmt.Errorf("%q: expected %s", s, form)
		}
	} else if hasW {
		return c, fmt.Errorf("%q: expected %s", s, form)
	}
	n, err := strconv.Atoi(files)
	if err != nil || n < 1 {
		return c, fmt.Errorf("%q: expected %s with FILES a whole number >= 1", s, form)
	}
	c.Files = n
	if mode == "fscopy" && w != "auto" {
		if c.Window, err = strconv.Atoi(w); err != nil || c.Window < 1 {
			return c, fmt.Errorf("%q: expected %s with WINDOW a whole number >= 1", s, form)
		}
	}
	return c, nil
}

// parseFSBench validates the cephfs scenario's flags: every mode at every
// number of files at once (and fscopy at every window).
func parseFSBench(f benchFlags) (benchPlan, error) {
	var p benchPlan
	if f.tree != "" {
		return parseTreeBench(f)
	}
	if f.sourceFiles < 1 {
		return p, fmt.Errorf("--source-files %d: expected at least 1", f.sourceFiles)
	}
	size, err := config.ParseBytes(f.fileSize)
	if err != nil {
		return p, fmt.Errorf("--file-size: %w", err)
	}
	if size < 1 {
		return p, fmt.Errorf("--file-size %q: expected at least 1 byte", f.fileSize)
	}
	p.objectSize = size
	if f.repeat < 1 {
		return p, fmt.Errorf("--repeat %d: expected at least 1", f.repeat)
	}
	if f.fsDir != "" && (!strings.HasPrefix(f.fsDir, "/") || strings.Trim(f.fsDir, "/") == "") {
		return p, fmt.Errorf("--fs-dir %q: expected an absolute path below the root, such as /bench", f.fsDir)
	}
	if f.one != "" {
		c, err := parseContender(f.one)
		if err != nil {
			return p, fmt.Errorf("--one %w", err)
		}
		if c.Mode != "clone" && c.Mode != "fscopy" {
			return p, fmt.Errorf("--one %q: the cephfs scenario runs clone and fscopy contenders", f.one)
		}
		if f.dstPrefix == "" || f.fsDir == "" {
			return p, fmt.Errorf("--one needs --dst-prefix and --fs-dir")
		}
		p.one = c
		return p, nil
	}
	windows, err := parseWindows("--windows", f.windows)
	if err != nil {
		return p, err
	}
	atOnce, err := parseWindows("--files-at-once", f.filesAtOnce)
	if err != nil {
		return p, err
	}
	for _, m := range strings.Split(f.modes, ",") {
		m = strings.TrimSpace(m)
		for _, n := range atOnce {
			switch m {
			case "clone":
				p.contenders = append(p.contenders, contender{Mode: "clone", Files: n})
			case "fscopy":
				for _, w := range windows {
					p.contenders = append(p.contenders, contender{Mode: "fscopy", Files: n, Window: w})
				}
			case "auto":
				p.contenders = append(p.contenders, contender{Mode: "fscopy", Files: n})
			default:
				return p, fmt.Errorf("--modes %q: unknown cephfs mode %q, expected clone, fscopy or auto", f.modes, m)
			}
		}
	}
	if f.plot != "" {
		return p, fmt.Errorf("--plot %q: the cephfs scenario has no window sweep to plot", f.plot)
	}
	return p, nil
}
