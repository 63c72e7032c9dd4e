package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/radoscp/radoscp/config"
	"github.com/radoscp/radoscp/layout"
)

// scenario is one of the README's cases.
type scenario struct {
	name, title string
	objects     int
	objectSize  uint64
	delay       time.Duration
	// cephfs scenarios copy objects files of objectSize bytes each in
	// CephFS instead of objects in a pool.
	cephfs bool
}

var scenarios = []scenario{
	{"kernel", "the kernel patch's case: 128 MiB in 32 objects of 4 MiB", 32, 4 << 20, 0, false},
	{"latency10", "latency-bound: 256 objects of 256 KiB, OSD replies delayed up to 10 ms", 256, 256 << 10, 10 * time.Millisecond, false},
	{"latency20", "latency-bound: 256 objects of 256 KiB, OSD replies delayed up to 20 ms", 256, 256 << 10, 20 * time.Millisecond, false},
	{"latency2", "a near network: 256 objects of 256 KiB, OSD replies delayed up to 2 ms", 256, 256 << 10, 2 * time.Millisecond, false},
	{"latency1", "a near network: 256 objects of 256 KiB, OSD replies delayed up to 1 ms", 256, 256 << 10, time.Millisecond, false},
	{"latency05", "a near network: 256 objects of 256 KiB, OSD replies delayed up to 0.5 ms", 256, 256 << 10, 500 * time.Microsecond, false},
	{"latency1-4096", "many objects, a near network: 4,096 objects of 64 KiB, OSD replies delayed up to 1 ms", 4096, 64 << 10, time.Millisecond, false},
	{"throughput", "throughput-bound: 1 GiB in 256 objects of 4 MiB", 256, 4 << 20, 0, false},
	{"cephfs", "CephFS: 8 files of 32 MiB against the clone anchor", 8, 32 << 20, 0, true},
}

func scenarioNames() string {
	var s []string
	for _, sc := range slices.Concat(scenarios, treeScenarios) {
		s = append(s, sc.name)
	}
	return strings.Join(s, ", ")
}

// applyScenario presets what --scenario names; flags set explicitly win.
func applyScenario(f *benchFlags, cfg *config.Config, changed func(string) bool) error {
	if f.scenario == "" {
		return nil
	}
	if i := slices.IndexFunc(treeScenarios, func(s scenario) bool { return s.name == f.scenario }); i >= 0 {
		applyTreeScenario(f, treeScenarios[i], changed)
		return nil
	}
	i := slices.IndexFunc(scenarios, func(s scenario) bool { return s.name == f.scenario })
	if i < 0 {
		return fmt.Errorf("--scenario %q: expected one of %s", f.scenario, scenarioNames())
	}
	sc := scenarios[i]
	if sc.cephfs {
		return applyFSScenario(f, sc, changed)
	}
	if !changed("objects") {
		f.objects = sc.objects
	}
	if !changed("object-size") {
		cfg.ObjectSize = sc.objectSize
	}
	if !changed("inject-osd-delay") {
		f.injectDelay = sc.delay
	}
	return nil
}

// contender is one way of copying: a mode and, for offload and client, a
// window; in CephFS, also how many files are copied at once.
type contender struct {
	Mode   string `json:"mode"`
	Window int    `json:"window"`          // 0 for auto and rados-cp
	Files  int    `json:"files,omitempty"` // clone and fscopy: files at once
}

func (c contender) String() string {
	switch {
	case c.Mode == "clone":
		return c.Mode + ":" + strconv.Itoa(c.Files)
	case c.Mode == "fscopy" && c.Window == 0:
		return c.Mode + ":" + strconv.Itoa(c.Files) + ":auto"
	case c.Mode == "fscopy":
		return c.Mode + ":" + strconv.Itoa(c.Files) + ":" + strconv.Itoa(c.Window)
	case c.Window == 0:
		return c.Mode
	}
	return c.Mode + ":" + strconv.Itoa(c.Window)
}

func parseContender(s string) (contender, error) {
	mode, w, hasW := strings.Cut(s, ":")
	c := contender{Mode: mode}
	switch mode {
	case "clone", "fscopy":
		return parseFSContender(s, mode, w)
	case "auto", "all", "rados-cp", "cp-fuse", "sharded", "sharded-dir", "existing", "snapshot", "snapshot-clone", "snapshot-cp-fuse":
		if hasW {
			return c, fmt.Errorf("%q: %s takes no window", s, mode)
		}
		return c, nil
	case "command":
		if !hasW {
			return c, nil // --window auto
		}
		n, err := strconv.Atoi(w)
		if err != nil || n < 1 {
			return c, fmt.Errorf("%q: expected command (--window auto) or command:WINDOW with a whole number >= 1", s)
		}
		c.Window = n
		return c, nil
	case "offload", "client":
		n, err := strconv.Atoi(w)
		if err != nil || n < 1 {
			return c, fmt.Errorf("%q: expected %s:WINDOW with a whole number >= 1", s, mode)
		}
		c.Window = n
		return c, nil
	}
	return c, fmt.Errorf("%q: unknown contender, expected offload:N, client:N, auto, all, rados-cp, command, command:N, clone:FILES, fscopy:FILES:WINDOW, cp-fuse, sharded, sharded-dir or existing", s)
}

// benchPlan is the validated sweep.
type benchPlan struct {
	objectSize uint64
	contenders []contender
	one        contender
}

func parseBench(f benchFlags, objectSize uint64) (benchPlan, error) {
	p := benchPlan{objectSize: objectSize}
	if f.cephfs {
		return parseFSBench(f)
	}
	if f.pool == "" {
		return p, errors.New("run needs --pool (or --scenario cephfs)")
	}
	if f.objects < 1 {
		return p, fmt.Errorf("--objects %d: expected at least 1", f.objects)
	}
	if f.repeat < 1 {
		return p, fmt.Errorf("--repeat %d: expected at least 1", f.repeat)
	}
	if err := (layout.Layout{StripeUnit: p.objectSize, StripeCount: 1, ObjectSize: p.objectSize}).Validate(); err != nil {
		return p, fmt.Errorf("--object-size: %w", err)
	}
	if f.one != "" {
		c, err := parseContender(f.one)
		if err != nil {
			return p, fmt.Errorf("--one %w", err)
		}
		if f.dstPrefix == "" {
			return p, errors.New("--one needs --dst-prefix")
		}
		if c.Mode == "command" {
			return p, fmt.Errorf("--one %q: the command contender is radoscp's own process, not run by --one", f.one)
		}
		p.one = c
		return p, nil
	}
	windows, err := parseWindows("--windows", f.windows)
	if err != nil {
		return p, err
	}
	clientWindows := windows
	if f.clientWindows != "" {
		if clientWindows, err = parseWindows("--client-windows", f.clientWindows); err != nil {
			return p, err
		}
	}
	for _, m := range strings.Split(f.modes, ",") {
		switch m = strings.TrimSpace(m); m {
		case "offload", "client":
			ws := windows
			if m == "client" {
				ws = clientWindows
			}
			for _, w := range ws {
				p.contenders = append(p.contenders, contender{Mode: m, Window: w})
			}
		case "auto", "all", "rados-cp":
			p.contenders = append(p.contenders, contender{Mode: m})
		case "command":
			for _, w := range windows {
				p.contenders = append(p.contenders, contender{Mode: m, Window: w})
			}
			p.contenders = append(p.contenders, contender{Mode: m})
		default:
			return p, fmt.Errorf("--modes %q: unknown mode %q, expected offload, auto, all, rados-cp, command or client", f.modes, m)
		}
	}
	if f.plot != "" && !strings.HasSuffix(f.plot, ".svg") && !strings.HasSuffix(f.plot, ".png") {
		return p, fmt.Errorf("--plot %q: expected a .svg or .png file name", f.plot)
	}
	return p, nil
}

func parseWindows(flag, list string) ([]int, error) {
	var ws []int
	for _, w := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s %q: expected comma-separated whole numbers >= 1", flag, list)
		}
		ws = append(ws, n)
	}
	return ws, nil
}
