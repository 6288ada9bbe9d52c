package main

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/sdtkit/sdtkit/bpf"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// The event encoder writes each event's JSON straight into a byte slice,
// with no reflection and no boxing of argument values: the reader's time
// per event decides how many events a traced process may fire before
// the ring buffer fills. Its output is what encoding/json gives with
// HTML escaping off.

// appendValue appends the JSON of an argument as typ asks: null when it
// was not read, a string for a str or hex type, a number otherwise.
func appendValue(b []byte, v bpf.Value, typ probespec.Type) []byte {
	switch v.Kind {
	case bpf.NotRead:
		return append(b, "null"...)
	case bpf.String:
		if typ.Kind == probespec.String {
			return appendString(b, v.Str)
		}
	}
	switch typ.Kind {
	case probespec.Int:
		if typ.Signed {
			return strconv.AppendInt(b, int64(v.As(typ.Size, true)), 10)
		}
		return strconv.AppendUint(b, v.As(typ.Size, false), 10)
	case probespec.Hex:
		size := v.Size
		if size <= 0 || size > 8 {
			size = 8
		}
		b = append(b, `"0x`...)
		b = strconv.AppendUint(b, v.As(size, false), 16)
		return append(b, '"')
	}
	switch v.Kind {
	case bpf.Int:
		return strconv.AppendInt(b, int64(v.Bits), 10)
	case bpf.Float:
		return appendFloat(b, v.Float())
	}
	return strconv.AppendUint(b, v.Bits, 10)
}

// appendFloat appends f as encoding/json writes a float64; NaN and the
// infinities, which JSON cannot hold, as null.
func appendFloat(b []byte, f float64) []byte {
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

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string: quote, backslash and control
// characters escaped (\n, \r, \t, \b, \f by name, others as \u00XX),
// invalid UTF-8 replaced by U+FFFD, and U+2028 and U+2029 escaped, as
// encoding/json does with HTML escaping off.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
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
