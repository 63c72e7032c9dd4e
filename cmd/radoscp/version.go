package main

import (
	"fmt"
	"os"
	"runtime/debug"

	gorados "github.com/ceph/go-ceph/rados"
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// version is radoscp's version: set at build time with -ldflags "-X
// main.version=..." (make build sets git describe's), else read from
// the build info.
var version = ""

// versionString names radoscp's version and the librados it runs with:
// the library loaded at run time, which decides the Ceph releases it
// works against.
func versionString() string {
	v := version
	if v == "" {
		v = buildVersion()
	}
	major, minor, patch := gorados.Version()
	return fmt.Sprintf("radoscp %s (librados ABI %d.%d.%d loaded; built with the %s API)", v, major, minor, patch, cephAPI)
}

// buildVersion is the version Go stamped into the binary: the module's
// (go install ...@v1.2.3), or for a build in a git checkout the commit
// as a pseudo-version (v0.0.0-DATE-COMMIT, +dirty with uncommitted
// changes); "(devel)" when the build recorded neither (-buildvcs=false).
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", ""
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && len(s.Value) >= 12:
			rev = s.Value[:12]
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "+dirty"
		}
	}
	if rev == "" {
		return "(devel)"
	}
	return rev + dirty
}

// newManCommand writes a man page for radoscp and each of its commands.
func newManCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write man pages (radoscp.1, radoscp-cp.1, ...) into DIR",
		Args:  exactArgs(1, "DIR, the directory to write the pages into"),
		RunE: func(cmd *cobra.Command, args []string) error {
			start(cmd)
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return usage("man: %v", err)
			}
			root.DisableAutoGenTag = true
			return doc.GenManTree(root, &doc.GenManHeader{Title: "RADOSCP", Section: "1", Source: "radoscp"}, args[0])
		},
	}
}
