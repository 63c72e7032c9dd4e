package names

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Quote is s for a line of text: as it is when every character is one a
// shell takes literally; else in single quotes ('a b'), or in $'...'
// with escapes when it holds control characters or bytes that are not
// UTF-8 ($'a\nb', $'\377').
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, unsafe) < 0 && utf8.ValidString(s) {
		return s
	}
	if utf8.ValidString(s) && strings.IndexFunc(s, notPrint) < 0 {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1, notPrint(r):
			escape(&b, s[i:i+n])
		case r == '\'' || r == '\\':
			b.WriteString(`\` + string(r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteString("'")
	return b.String()
}

// Lossless is the base64 of s's bytes when s is not valid UTF-8 (which
// JSON strings turn into U+FFFD, so two names could print alike), else
// "": the form --json adds beside the display string.
func Lossless(s string) string {
	if utf8.ValidString(s) {
		return ""
	}
	return base64.StdEncoding.EncodeToString([]byte(s))
}

var escapes = map[byte]string{'\n': `\n`, '\t': `\t`, '\r': `\r`, '\a': `\a`, '\b': `\b`, '\f': `\f`, '\v': `\v`, 0x1b: `\E`}

// unsafe says whether a shell would not take r literally in a word.
func unsafe(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return false
	case r < utf8.RuneSelf:
		return !strings.ContainsRune("%+,-./:=@_^", r)
	}
	return notPrint(r)
}

func notPrint(r rune) bool { return !unicode.IsPrint(r) }

// Escape is a message (an error's text, a reason) for one line of text:
// control characters and bytes that are not UTF-8 in it, most often
// inside a name the message quotes raw, are written as Quote's escapes
// (\n, \377), the rest as it is.
func Escape(msg string) string {
	if utf8.ValidString(msg) && strings.IndexFunc(msg, notPrint) < 0 {
		return msg
	}
	var b strings.Builder
	for i := 0; i < len(msg); {
		r, n := utf8.DecodeRuneInString(msg[i:])
		if r == utf8.RuneError && n == 1 || notPrint(r) {
			escape(&b, msg[i:i+n])
		} else {
			b.WriteString(msg[i : i+n])
		}
		i += n
	}
	return b.String()
}

// escape writes the bytes of s, a character that is not printed or a byte
// that is not UTF-8, as escapes.
func escape(b *strings.Builder, s string) {
	for _, c := range []byte(s) {
		if e, ok := escapes[c]; ok {
			b.WriteString(e)
		} else {
			fmt.Fprintf(b, `\%03o`, c)
		}
	}
}
