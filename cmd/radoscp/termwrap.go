package main

import (
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// wrapForTerminal breaks text's lines that are wider than w's terminal
// between words, continuing on lines indented by two spaces:
// a terminal would break them mid-word. Text for anything but a terminal
// (a file, a pipe: what scripts read) is returned as it is.
func wrapForTerminal(w io.Writer, text string) string {
	f, ok := w.(*os.File)
	if !ok {
		return text
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col < 20 {
		return text
	}
	return wrapText(text, int(ws.Col)-1)
}

// wrapText breaks each line of text wider than width as wrapForTerminal
// says.
func wrapText(text string, width int) string {
	lines := strings.SplitAfter(text, "\n")
	for i, line := range lines {
		nl := strings.HasSuffix(line, "\n")
		line = strings.TrimSuffix(line, "\n")
		if len(line) <= width {
			continue
		}
		var out []string
		cur := ""
		for _, word := range strings.SplitAfter(line, " ") {
			switch {
			case cur == "":
				cur = word
			case len(cur)+len(word) <= width:
				cur += word
			default:
				out = append(out, strings.TrimRight(cur, " "))
				cur = "  " + strings.TrimLeft(word, " ")
			}
		}
		lines[i] = strings.Join(append(out, cur), "\n")
		if nl {
			lines[i] += "\n"
		}
	}
	return strings.Join(lines, "")
}
