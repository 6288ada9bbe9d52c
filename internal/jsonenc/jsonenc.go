// Package jsonenc appends JSON strings and numbers to byte slices as
// encoding/json writes them with HTML escaping off, for the encoders of
// package ndjson, which write NDJSON without reflection.
package jsonenc

import (
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// safe marks the bytes a JSON string holds as they are.
var safe = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendString appends s as a JSON string: quote, backslash and control
// characters escaped (\n, \r, \t, \b, \f by name, others as \u00XX),
// invalid UTF-8 replaced by U+FFFD, and U+2028 and U+2029 escaped, so
// that every line is valid JSON whatever s holds.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; ; {
		for i+8 <= len(s) && unsafe8(binary.LittleEndian.Uint64([]byte(s[i:i+8]))) == 0 {
			i += 8
		}
		for i < len(s) && safe[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// unsafe8 returns 0 when the 8 bytes of w are all safe, and not 0 when
// one is below 0x20, '"', '\\' or not ASCII: the tests of "Bit Twiddling
// Hacks" (haszero, hasless) for all 8 at once. Most strings are plain
// ASCII, and a long one is then escaped in half the time.
func unsafe8(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := w ^ '"'*ones
	bs := w ^ '\\'*ones
	return ((w-0x20*ones)&^w | (q-ones)&^q | (bs-ones)&^bs | w) & highs
}

// AppendFloat appends f as encoding/json writes a float64; NaN and the
// infinities, which JSON cannot hold, as null.
func AppendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9, as in encoding/json.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
