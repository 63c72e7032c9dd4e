package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Messages for operators: errors say what happened in the words of the
// command line, not of the Go packages underneath.

// plural is "1 file", "2 files".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// goInternals are the pieces of library error messages that mean nothing
// to an operator, and what to say instead.
var goInternals = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`window: stopped before operation \d+: `), ""},
	{regexp.MustCompile(`context canceled(: interrupted)?`), "interrupted"},
	{regexp.MustCompile(`context deadline exceeded`), "timed out"},
}

// plainWords rewrites msg without Go internals.
func plainWords(msg string) string {
	for _, g := range goInternals {
		msg = g.re.ReplaceAllString(msg, g.with)
	}
	return msg
}

// cobraWords rewrites the errors cobra raises before a command runs:
// an unknown command with its suggestions on one line.
func cobraWords(err error) error {
	msg := err.Error()
	if !strings.HasPrefix(msg, "unknown command") {
		return err
	}
	lines := strings.Split(msg, "\n")
	out := strings.TrimSuffix(lines[0], ` for "radoscp"`)
	var sugg []string
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "\t") {
			sugg = append(sugg, strings.TrimSpace(l))
		}
	}
	if len(sugg) > 0 {
		out += "; did you mean " + strings.Join(sugg, " or ") + "?"
	} else {
		out += "; radoscp --help lists the commands"
	}
	return errors.New(out)
}

// flagError adds to an unknown flag the flags it is close to.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if m := badValue.FindStringSubmatch(msg); m != nil {
		if kind, ok := numberKinds[m[3]]; ok {
			return fmt.Errorf("%s: %s: expected %s", m[2], m[1], kind)
		}
		return fmt.Errorf("%s: %s", m[2], m[4]) // the flag type's own words
	}
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		if short, ok := strings.CutPrefix(msg, "unknown shorthand flag: "); ok {
			_, in, _ := strings.Cut(short, " in ")
			return fmt.Errorf("unknown flag %s; %s --help lists the flags", in, cmd.CommandPath())
		}
		return err
	}
	var prefixed, close []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		switch {
		case f.Hidden:
		case len(name) >= 3 && strings.HasPrefix(f.Name, name):
			prefixed = append(prefixed, "--"+f.Name)
		case editDistance(name, f.Name) <= max(1, len(name)/3):
			close = append(close, "--"+f.Name)
		}
	})
	if len(prefixed) > 0 {
		close = prefixed
	}
	if len(close) == 0 {
		return fmt.Errorf("unknown flag --%s; %s --help lists the flags", name, cmd.CommandPath())
	}
	return fmt.Errorf("unknown flag --%s; did you mean %s?", name, strings.Join(close, " or "))
}

// badValue is pflag's error for a flag given a value it cannot parse:
// the value, the flag, and the strconv function that refused it or the
// flag type's own message.
var badValue = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?(--[\w-]+)" flag: (?:strconv\.(Parse\w+).*|(.*))$`)

// numberKinds says what each strconv parser expects, in an operator's
// words.
var numberKinds = map[string]string{
	"ParseUint":  "a whole number >= 0",
	"ParseInt":   "a whole number",
	"ParseFloat": "a number",
	"ParseBool":  "true or false",
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
