package config

import (
	"strconv"
	"strings"
)

// autoWindow is the window value that asks for an adaptive window.
const autoWindow = "auto"

// windowField is the window key's field: a number, or "auto".
type windowField struct {
	n    *int
	auto *bool
}

func (w windowField) format() string {
	if *w.auto {
		return autoWindow
	}
	return strconv.Itoa(*w.n)
}

func (w windowField) parse(text string) (reason string) {
	if strings.EqualFold(strings.TrimSpace(text), autoWindow) {
		*w.n, *w.auto = 0, true
		return ""
	}
	n, err := strconv.Atoi(text)
	if err != nil {
		return `expected a whole number, or "auto"`
	}
	*w.n, *w.auto = n, false
	return ""
}

// windowFlag is the --window flag: it keeps the text, checked as it is
// set, so that viper sees what was typed.
type windowFlag struct{ text string }

func (f *windowFlag) String() string { return f.text }
func (f *windowFlag) Type() string   { return "window" }
func (f *windowFlag) Set(s string) error {
	var n int
	var auto bool
	if reason := (windowField{&n, &auto}).parse(s); reason != "" {
		return &windowError{text: s, reason: reason}
	}
	f.text = s
	return nil
}

type windowError struct{ text, reason string }

func (e *windowError) Error() string { return strconv.Quote(e.text) + ": " + e.reason }
