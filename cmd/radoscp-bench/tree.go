package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/radoscp/radoscp/cephfs"
	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/shard"
)

// The tree scenarios copy a directory tree of small files in CephFS:
// smallfiles (generated files of 4-64 KiB in nested directories),
// smallfiles-2ms (1,000 of them behind a network: the replies of the MDS
// and the OSDs to every contender's client delayed up to 2 ms, the
// small-file issue's table) and tree (a copy of a real system directory,
// /usr/include by default, staged into CephFS by the scenario). Their contenders are radoscp cp -r with
// its defaults, the clone anchor (one file at a time, and 4 at once as
// ceph-mgr runs 4 clones by default) and cp -a through a ceph-fuse mount.
var treeScenarios = []scenario{
	{name: "smallfiles", title: "small files: %d files of 4-64 KiB in nested directories", objects: 5000, cephfs: true},
	{name: "smallfiles-2ms", title: "small files behind a network: %d files of 4-64 KiB in nested directories, MDS and OSD replies delayed up to 2 ms", objects: 1000, delay: 2 * time.Millisecond, cephfs: true},
	{name: "tree", title: "a real tree: %s copied into CephFS", cephfs: true},
}

// treeContenders are the tree scenarios' rows: radoscp with radoscp cp's
// defaults (--files 4, --window 16), the clone anchor at 1 and 4 files at
// once, cp -a through ceph-fuse, radoscp's sharded copy (3 workers at
// once, then the final pass; shares by path, and by directory), and
// radoscp cp -r into an existing directory
// (every file through its own staging file). The snapshot rows copy a
// snapshot of the source instead, as a nightly clone does: radoscp cp -r
// with its defaults, the clone anchor 4 files at once (ceph-mgr's
// subvolume clone of a snapshot) and cp -a through ceph-fuse.
var treeContenders = []contender{
	{Mode: "fscopy", Files: 4, Window: 16},
	{Mode: "clone", Files: 1},
	{Mode: "clone", Files: 4},
	{Mode: "cp-fuse"},
	{Mode: "sharded"},
	{Mode: "sharded-dir"},
	{Mode: "existing"},
	{Mode: "snapshot"},
	{Mode: "snapshot-clone"},
	{Mode: "snapshot-cp-fuse"},
}

// benchSnapshot names the snapshot of the source the snapshot rows copy,
// taken once the source is staged and removed after the run.
const benchSnapshot = "radoscp-bench"

// fromSnapshot says whether contender mode copies the source's snapshot.
func fromSnapshot(mode string) bool { return strings.HasPrefix(mode, "snapshot") }

// treeAnchor says, in the report, what a tree scenario's speed-up is over.
const treeAnchor = "the clone anchor one file at a time (ceph-mgr's subvolume clone: libcephfs reads and writes in 8 MiB chunks, mode, owner and times kept)"

// applyTreeScenario presets a tree scenario; flags set explicitly win.
func applyTreeScenario(f *benchFlags, sc scenario, changed func(string) bool) {
	f.cephfs, f.tree = true, treeKind(sc.name)
	if !changed("source-files") {
		f.sourceFiles = sc.objects
	}
	if sc.delay > 0 && !changed("inject-osd-delay") {
		f.injectDelay = sc.delay
		if !changed("inject-delay-type") {
			f.injectDelayType = "mds osd" // a CephFS client's network
		}
	}
}

// treeKind is what a tree scenario's source is: "tree" (a copy of a local
// directory) or "smallfiles" (generated).
func treeKind(scenario string) string {
	if scenario == "tree" {
		return "tree"
	}
	return "smallfiles"
}

// treeInfo is what a tree scenario's source held.
type treeInfo struct {
	Source   string `json:"source"`
	Files    int    `json:"files"`
	Symlinks int    `json:"symlinks"`
	Dirs     int    `json:"dirs"`
	Bytes    uint64 `json:"bytes"`
}

// parseTreeBench validates a tree scenario's flags.
func parseTreeBench(f benchFlags) (benchPlan, error) {
	// The object size is unused (the files keep their layouts) but
	// passed on to each contender's process, which checks it.
	p := benchPlan{objectSize: 4 << 20}
	if f.tree == "smallfiles" && f.sourceFiles < 1 {
		return p, fmt.Errorf("--source-files %d: expected at least 1", f.sourceFiles)
	}
	if f.tree == "tree" {
		if st, err := os.Stat(f.treeSource); err != nil || !st.IsDir() {
			return p, fmt.Errorf("--tree-source %q: expected a local directory to copy into CephFS", f.treeSource)
		}
	}
	if f.repeat < 1 {
		return p, fmt.Errorf("--repeat %d: expected at least 1", f.repeat)
	}
	if f.fsDir != "" && (!strings.HasPrefix(f.fsDir, "/") || strings.Trim(f.fsDir, "/") == "") {
		return p, fmt.Errorf("--fs-dir %q: expected an absolute path below the root, such as /bench", f.fsDir)
	}
	if f.plot != "" {
		return p, fmt.Errorf("--plot %q: the %s scenario has no window sweep to plot", f.plot, f.scenario)
	}
	if f.one != "" {
		c, err := parseContender(f.one)
		if err != nil {
			return p, fmt.Errorf("--one %w", err)
		}
		if f.dstPrefix == "" || f.fsDir == "" {
			return p, errors.New("--one needs --dst-prefix and --fs-dir")
		}
		p.one = c
		return p, nil
	}
	p.contenders = treeContenders
	return p, nil
}

// runTreeBench stages the source tree, runs every contender (each in a
// child process) --repeat times, compares each contender's first copy
// with the source, and removes the copies (all but the last repeat's
// with --keep-copies) and, without --keep, the source.
func runTreeBench(ctx context.Context, cfg config.Config, f benchFlags, plan benchPlan) (benchResult, error) {
	res := benchResult{Scenario: f.scenario, Machine: describeMachine(), Repeat: f.repeat, Anchor: treeAnchor}
	mnt, src, err := mountBenchDir(cfg, &f)
	if err != nil {
		return res, err
	}
	defer mnt.close()
	defer func() {
		if f.keep || f.keepCopies {
			return
		}
		if err := removeFSTree(mnt.fs, f.fsDir); err != nil {
			fmt.Fprintf(os.Stderr, "radoscp-bench: cleaning up cephfs:%s: %v\n", f.fsDir, err)
		}
	}()
	if err := stageTreeSources(mnt.fs, f.fsDir, src, f.tree, f.treeSource, f.sourceFiles); err != nil {
		return res, err
	}
	want, st, err := digestTree(mnt.fs, src)
	if err != nil {
		return res, fmt.Errorf("reading the sources: %w", err)
	}
	if slices.ContainsFunc(plan.contenders, func(c contender) bool { return fromSnapshot(c.Mode) }) {
		snap := path.Join(src, cephfs.SnapDir(mnt.conn), benchSnapshot)
		if err := mnt.fs.Mkdir(snap, 0o755); err != nil {
			return res, fmt.Errorf("the snapshot the snapshot rows copy: %w", err)
		}
		// Before the tree's removal: a directory with a snapshot
		// cannot be removed.
		defer func() {
			if err := mnt.fs.Rmdir(snap); err != nil {
				fmt.Fprintf(os.Stderr, "radoscp-bench: removing snapshot cephfs:%s: %v\n", snap, err)
			}
		}()
	}
	res.Tree = &treeInfo{Source: f.treeSource, Files: st.files, Symlinks: st.symlinks, Dirs: st.dirs, Bytes: st.bytes}
	res.Files = st.files
	i := slices.IndexFunc(treeScenarios, func(s scenario) bool { return s.name == f.scenario })
	if i < 0 { // not run as a scenario: the generated files' title
		i = 0
	}
	if f.tree == "smallfiles" {
		res.Tree.Source = ""
		res.Title = fmt.Sprintf(treeScenarios[i].title, st.files)
	} else {
		res.Title = fmt.Sprintf(treeScenarios[i].title, f.treeSource)
	}
	runs, verified, err := runFSContenders(ctx, mnt, cfg, f, plan, func(dst string) error {
		got, _, err := digestTree(mnt.fs, dst)
		if err == nil {
			err = compareTrees(want, got)
		}
		if err != nil {
			return fmt.Errorf("verifying the copy: %w", err)
		}
		return nil
	}, f.keepCopies)
	if err != nil {
		return res, err
	}
	for i, c := range plan.contenders {
		row := summarize(c, runs[i], st.bytes)
		row.Verified = verified[i]
		if row.Seconds > 0 {
			row.FilesPerS = float64(st.files) / row.Seconds
		}
		row.MDSRequestsPerFile, row.MDSCPUMsPerFile = mdsPerFile(runs[i], st.files)
		res.Rows = append(res.Rows, row)
	}
	res.SpeedUpOver = setSpeedUp(res.Rows)
	return res, nil
}

// runTreeOne runs one tree contender once, copying FS-DIR/src to the new
// directory --dst-prefix. radoscp and the clone anchor run in this
// process (CPU is this process's, the final sync of the file system
// included); cp -a runs through a ceph-fuse mount of its own.
func runTreeOne(ctx context.Context, cfg config.Config, f benchFlags, c contender) (runRecord, error) {
	src := path.Join(f.fsDir, "src")
	if fromSnapshot(c.Mode) {
		return runSnapshotOne(ctx, cfg, f, c, src)
	}
	if c.Mode == "cp-fuse" {
		return cpThroughFuse(ctx, cfg, f.fsName, src, f.dstPrefix, injectDelay(f.injectDelay, f.injectDelayType))
	}
	if c.Mode == "existing" {
		return measureFSOne(ctx, cfg, f, c, func(mnt *benchMount) (runRecord, error) {
			// One MDS request of the run's: the directory the copy
			// then finds in place.
			if err := mnt.fs.Mkdir(f.dstPrefix, 0o755); err != nil {
				return runRecord{}, err
			}
			return fscopyOnce(ctx, cfg, mnt, src+"/", f.dstPrefix, shardedDefaults, shard.None)
		})
	}
	if c.Mode == "sharded" || c.Mode == "sharded-dir" {
		workers, closeWorkers, err := mountWorkers(cfg, f)
		if err != nil {
			return runRecord{}, err
		}
		defer closeWorkers()
		return measureFSOne(ctx, cfg, f, c, func(mnt *benchMount) (runRecord, error) {
			return shardedOnce(ctx, cfg, mnt, workers, src, f.dstPrefix, c.Mode == "sharded-dir")
		})
	}
	return measureFSOne(ctx, cfg, f, c, func(mnt *benchMount) (runRecord, error) {
		if c.Mode == "clone" {
			return cloneTree(ctx, mnt.fs, src, f.dstPrefix, c.Files)
		}
		return fscopyOnce(ctx, cfg, mnt, src, f.dstPrefix, c, shard.None)
	})
}

// onlyForTreeScenarios refuses the tree scenarios' flags in the cephfs
// scenario, and its flags in them.
func onlyForTreeScenarios(f benchFlags, changed func(string) bool) error {
	if f.tree == "" {
		for _, name := range []string{"tree-source", "keep-copies"} {
			if changed(name) {
				return fmt.Errorf("--%s applies to --scenario smallfiles, smallfiles-2ms and tree only", name)
			}
		}
		return nil
	}
	for _, name := range []string{"file-size", "files-at-once", "windows", "modes"} {
		if changed(name) {
			return fmt.Errorf("--%s does not apply to --scenario %s: its contenders are fixed (radoscp cp -r with its defaults, the clone anchor, cp -a through ceph-fuse, radoscp sharded by path and by directory, into an existing directory, and the three from a snapshot)", name, f.scenario)
		}
	}
	if f.tree == "tree" && changed("source-files") {
		return errors.New("--source-files does not apply to --scenario tree: its source is --tree-source")
	}
	return nil
}

// runSnapshotOne runs one snapshot row once, copying the source's
// snapshot (src's benchSnapshot) to the new directory --dst-prefix.
func runSnapshotOne(ctx context.Context, cfg config.Config, f benchFlags, c contender, src string) (runRecord, error) {
	// The snapshot directory's name is the client's (client_snapdir).
	mnt, err := mountBenchFS(cfg, f.fsName, true, nil)
	if err != nil {
		return runRecord{}, err
	}
	snap := path.Join(src, cephfs.SnapDir(mnt.conn), benchSnapshot)
	mnt.close()
	switch c.Mode {
	case "snapshot-cp-fuse":
		return cpThroughFuse(ctx, cfg, f.fsName, snap, f.dstPrefix, injectDelay(f.injectDelay, f.injectDelayType))
	case "snapshot-clone":
		return measureFSOne(ctx, cfg, f, contender{Mode: "clone", Files: 4}, func(mnt *benchMount) (runRecord, error) {
			return cloneTree(ctx, mnt.fs, snap, f.dstPrefix, 4)
		})
	}
	return measureFSOne(ctx, cfg, f, c, func(mnt *benchMount) (runRecord, error) {
		return fscopyOnce(ctx, cfg, mnt, snap+"/", f.dstPrefix, shardedDefaults, shard.None)
	})
}
