package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/radoscp/radoscp/config"
)

type benchFlags struct {
	scenario                string
	pool, namespace, prefix string
	objects                 int
	windows, clientWindows  string
	modes                   string
	repeat                  int
	keep                    bool
	plot                    string
	injectDelay             time.Duration
	injectDelayType         string
	delayClock              string
	one                     string // a contender to run once in this process (internal)
	dstPrefix               string // with --one: where it copies to

	// The cephfs scenario's settings.
	cephfs                bool // set by --scenario cephfs
	sourceFiles           int
	fileSize, filesAtOnce string
	fsName, fsDir         string

	// The tree scenarios' settings (see tree.go).
	tree       string // the tree scenario run, set by --scenario
	treeSource string
	keepCopies bool
}

func newRunCommand() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "run --pool POOL [flags]",
		Short: "Measure server-side copy against one-at-a-time copy-from, rados cp and client-side copy",
		Long: `Creates (or reuses) --objects source objects of --object-size in --pool and
copies them with every contender in one run, then prints a table. Contenders
(--modes): offload (radoscp's copy-from at each window of --windows; window 1
is the one-at-a-time copy the kernel and rados cp do), auto (--window auto, up
to --max-window), all (every object's copy-from at once, no window, as
libcephfs's parallel copy_file_range in ceph/ceph PR 70316 does), rados-cp
(the rados CLI run once per object), command (radoscp cp itself, the
program beside this one, at each window of --windows and auto: its
prechecks and copy lock included) and client (read and write through this
client at each window of --client-windows, as clones and cp do). --scenario presets the objects, size and injected delay of
the cases in the README. radoscp's contenders copy as radoscp cp does, with
--pin-source (the default; --pin-source=false to measure without).

--scenario cephfs copies --source-files files of --file-size in CephFS
instead (no --pool needed), with its own contenders (--modes): clone (the
clone anchor: read and write through libcephfs in 8 MiB chunks, as ceph-mgr's
subvolume clones do, at each of --files-at-once), fscopy (radoscp cp -r at
each of --files-at-once and --windows, default 1,16) and auto (fscopy with
--window auto). Every copy is compared with its source on the first repeat.

--scenario smallfiles (--source-files files of 4-64 KiB in nested
directories, 5,000 by default), --scenario smallfiles-2ms (1,000 of them,
the replies of the MDS and the OSDs to every contender's client delayed up
to 2 ms: --inject-osd-delay 2ms --inject-delay-type "mds osd") and
--scenario tree (a copy of the local
--tree-source, /usr/include by default, staged into CephFS) copy a tree of
small files with fixed contenders: radoscp cp -r with its defaults, the
clone anchor at 1 and 4 files at once (mode, owner and times kept, as
ceph-mgr's clones do), cp -a through a ceph-fuse mount that the run
makes and removes itself (ceph-fuse's CPU counted as the client's),
radoscp's sharded copy (--shard K/3, three workers at once, then the
final pass; shares by path, and by directory with --shard-by dir) and
radoscp cp -r SRC/ into an existing directory; and, from a snapshot of the
source (SRC/.snap/S, as a nightly clone copies), radoscp cp -r, the clone
anchor 4 files at once and cp -a. Each
copy is compared with the source on the first repeat (type, mode, owner,
size, mtime, contents, symlink targets); the table adds files/s.

Every run of a contender is a child process of its own, so its CPU time and
peak RSS are its own; an operation of it that takes longer than --op-timeout
(2 minutes when 0) fails the run rather than holding it for ever. For objects, the table adds client CPU per object and
the child's whole-process wall time ("process s": start, connect, the first
osdmap, the copy, shutdown) and what it cost besides the copy ("fixed s"). Each figure is the median of --repeat runs.
Destination objects are removed after each run; the source objects too,
unless --keep.`,
		Args: cobra.NoArgs,
	}
	loader := config.Bind(cmd.Flags())
	fl := cmd.Flags()
	fl.StringVar(&f.scenario, "scenario", "", "preset objects, object size and delay: "+scenarioNames())
	fl.StringVar(&f.pool, "pool", "", "pool to benchmark in (required)")
	fl.StringVar(&f.namespace, "namespace", "", "namespace in the pool")
	fl.StringVar(&f.prefix, "prefix", "bench-src", "name prefix of the source objects")
	fl.IntVar(&f.objects, "objects", 32, "number of source objects")
	fl.StringVar(&f.windows, "windows", "1,2,4,8,16,32,64", "comma-separated windows to sweep with offload")
	fl.StringVar(&f.clientWindows, "client-windows", "", "comma-separated windows for the client copy (default: --windows)")
	fl.StringVar(&f.modes, "modes", "offload,auto,all,rados-cp,client", "comma-separated contenders: offload, auto, all, rados-cp, command, client")
	fl.IntVar(&f.repeat, "repeat", 3, "runs per figure (the median is reported)")
	fl.BoolVar(&f.keep, "keep", false, "keep the source objects for another run")
	fl.StringVar(&f.plot, "plot", "", "write a plot of speed-up against window to this .svg or .png file")
	fl.Bool("no-progress", false, "accepted for symmetry with radoscp cp; run prints no progress")
	fl.DurationVar(&f.injectDelay, "inject-osd-delay", 0, "delay every OSD reply to this client by up to this long (ms_inject_delay_max), to model a latency-bound cluster")
	fl.StringVar(&f.injectDelayType, "inject-delay-type", "osd", `the daemons whose replies --inject-osd-delay delays (ms_inject_delay_type): "osd", or "mds osd" for a network between a CephFS client and the cluster (every contender's client, ceph-fuse's too)`)
	fl.StringVar(&f.delayClock, "delay-clock", fineDelayClock, `how the contenders' Ceph clients time --inject-osd-delay: "fine" (a shim, built with $CC or cc, makes Ceph's coarse clock the fine one and its sub-millisecond waits sleep, so each reply waits the delay drawn, as on a network) or "coarse" (Ceph's own: a delay is released on the next tick of the kernel's coarse clock, 4 ms at HZ=250, and polled for meanwhile)`)
	fl.IntVar(&f.sourceFiles, "source-files", 8, "cephfs scenario: number of source files")
	fl.StringVar(&f.fileSize, "file-size", "32M", "cephfs scenario: size of each source file (K, M, G suffixes are powers of 1024)")
	fl.StringVar(&f.filesAtOnce, "files-at-once", "1,4", "cephfs scenario: comma-separated numbers of files copied at once, swept by clone and fscopy")
	fl.StringVar(&f.fsName, "fs", "", "cephfs scenario: file system name (default: the default file system)")
	fl.StringVar(&f.fsDir, "fs-dir", "", "cephfs scenario: directory for the sources and copies, removed afterwards unless --keep (default: /PREFIX)")
	fl.StringVar(&f.treeSource, "tree-source", "/usr/include", "tree scenario: the local directory copied into CephFS as the source")
	fl.BoolVar(&f.keepCopies, "keep-copies", false, "smallfiles and tree scenarios: keep the source and each contender's copy of the last repeat (in FS-DIR)")
	fl.StringVar(&f.one, "one", "", "run this one contender once and print its measurements as JSON (used by run itself)")
	fl.StringVar(&f.dstPrefix, "dst-prefix", "", "with --one: name prefix of the destination objects")
	_ = fl.MarkHidden("one")
	_ = fl.MarkHidden("dst-prefix")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		cfg, _, err := loader.Load()
		if err != nil {
			return usageError{Err: err}
		}
		if err := applyScenario(&f, &cfg, cmd.Flags().Changed); err != nil {
			return usageError{Err: err}
		}
		if err := onlyForFSScenario(f, cmd.Flags().Changed); err != nil {
			return usageError{Err: err}
		}
		if err := parseDelayClock(f.delayClock); err != nil {
			return usageError{Err: err}
		}
		plan, err := parseBench(f, cfg.ObjectSize)
		if err != nil {
			return usageError{Err: err}
		}
		if err := checkModes(cfg, plan); err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if f.one != "" {
			rec, err := runOne(ctx, cfg, f, plan)
			if err != nil {
				return err
			}
			rec.FineClock = fineCoarseClock()
			return json.NewEncoder(cmd.OutOrStdout()).Encode(rec)
		}
		if f.injectDelay > 0 && f.delayClock == fineDelayClock {
			restore, err := preloadFineClock()
			if err != nil {
				return err
			}
			defer restore()
		}
		res, err := runBench(ctx, cfg, f, plan)
		if err != nil {
			return err
		}
		if res.InjectDelayS = f.injectDelay.Seconds(); f.injectDelay > 0 {
			res.DelayClock, res.DelayType = f.delayClock, f.injectDelayType
		}
		if cfg.JSON {
			if err := json.NewEncoder(cmd.OutOrStdout()).Encode(res); err != nil {
				return err
			}
		} else {
			printBench(cmd.OutOrStdout(), res.Rows, res.SpeedUpOver)
			if note := delayNote(f.injectDelay, time.Duration(res.Machine.CoarseClockNs), res.DelayClock); note != "" {
				fmt.Fprintln(cmd.OutOrStdout(), note)
			}
		}
		if f.plot != "" {
			if err := plotSpeedup(f.plot, []benchResult{res}); err != nil {
				return err
			}
		}
		return nil
	}
	return cmd
}

// checkModes refuses --offload-only with the client mode, which moves
// every byte through the client by design.
func checkModes(cfg config.Config, p benchPlan) error {
	modes := []string{p.one.Mode}
	for _, c := range p.contenders {
		modes = append(modes, c.Mode)
	}
	if cfg.OffloadOnly && slices.Contains(modes, "client") {
		return usage("--offload-only conflicts with --modes client (client mode copies through the client); drop one")
	}
	return nil
}
