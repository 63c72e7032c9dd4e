// Package names prints path and object names in text the way GNU
// coreutils do (ls --quoting-style=shell-escape): a name holding a
// newline, a space or bytes that are not UTF-8 stays on one line and can
// be pasted back into a shell.
package names
