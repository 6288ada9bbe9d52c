// Package termtext writes text that traced programs choose (thread names,
// providers and probe names, paths, string arguments) for a terminal: as
// it is when that is unambiguous, quoted as in Go otherwise, so that no
// control byte, invalid UTF-8 or invisible character reaches the screen
// raw and a value stays one word of its column.
package termtext

import (
	"strconv"
	"unicode/utf8"
)

// Append appends s as it is when Plain(s), and otherwise quoted as
// strconv.Quote does: control bytes, C1 controls, invalid UTF-8 and
// characters that are not printable (U+2028, bidirectional overrides)
// are written as escapes.
func Append(b []byte, s string) []byte {
	if Plain(s) {
		return append(b, s...)
	}
	return strconv.AppendQuote(b, s)
}

// String returns s as Append writes it; s itself when it is plain.
func String(s string) string {
	if Plain(s) {
		return s
	}
	return strconv.Quote(s)
}

// AppendPrintable appends s as it is when Printable(s), and otherwise as
// Append does: for text the reader asked to see whole, blanks and quotes
// included.
func AppendPrintable(b []byte, s string) []byte {
	if Printable(s) {
		return append(b, s...)
	}
	return strconv.AppendQuote(b, s)
}

// Plain reports whether s reads unambiguously without quotes: it is not
// empty, not "?" (which stands for an unknown value), valid UTF-8, and
// made of printable characters other than the space, '"' and '\'.
func Plain(s string) bool { return s != "" && s != "?" && shown(s, true) }

// Printable reports whether s is valid UTF-8 made of printable characters
// and spaces, as strconv.IsPrint says.
func Printable(s string) bool { return shown(s, false) }

// shown reports whether every character of s may be written as it is;
// with word set, the space, '"' and '\' may not.
func shown(s string, word bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f || word && (c == ' ' || c == '"' || c == '\\') {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !strconv.IsPrint(r) {
			return false
		}
		i += n
	}
	return true
}
