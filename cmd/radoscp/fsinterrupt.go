package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

// fsInterrupted is the error of a CephFS cp or migrate an interrupt
// stopped, naming the command that continues it, as a striper: or rados:
// copy's does (objcopy's interrupted): the same command line with
// --resume, which continues the kept staging files and leaves the files
// already in place alone.
func fsInterrupted(copied bool) error {
	msg := "interrupted before anything was copied"
	if copied {
		msg = "interrupted"
	}
	return fmt.Errorf("%s; continue with: %s", msg, resumeCommand(os.Args[1:]))
}

// resumeCommand is the radoscp command line args (the subcommand first)
// with --resume after the subcommand, unless it has it, quoted for a
// POSIX shell.
func resumeCommand(args []string) string {
	out := []string{"radoscp"}
	for i, a := range args {
		out = append(out, shellWord(a))
		if i == 0 && !slices.Contains(args, "--resume") {
			out = append(out, "--resume")
		}
	}
	return strings.Join(out, " ")
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellWord is s as one word of a POSIX shell command.
func shellWord(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
