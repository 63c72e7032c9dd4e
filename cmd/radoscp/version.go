package main

import (
	"fmt"
	"os"
	"runtime/debug"

	gorados "github.com/ceph/go-ceph/rados"
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// version is radoscp's version: set at build time with
// -ldflags "-X main.version=...", else the module's from the build info.
var version = ""

// versionString names radoscp's version and the librados it runs with:
// the library loaded at run time, which decides the Ceph releases it
// works against.
func versionString() string {
	v := version
	if v == "" {
		v = "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			v = bi.Main.Version
		}
	}
	major, minor, patch := gorados.Version()
	return fmt.Sprintf("radoscp %s (librados ABI %d.%d.%d loaded; built with the Ceph 16.2 pacific API)", v, major, minor, patch)
}

// newManCommand writes a man page for radoscp and each of its commands.
func newManCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write man pages (radoscp.1, radoscp-cp.1, ...) into DIR",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			started = true
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return usage("man: %v", err)
			}
			root.DisableAutoGenTag = true
			return doc.GenManTree(root, &doc.GenManHeader{Title: "RADOSCP", Section: "1", Source: "radoscp"}, args[0])
		},
	}
}
