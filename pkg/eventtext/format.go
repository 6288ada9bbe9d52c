package eventtext

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sdtkit/sdtkit/internal/termtext"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

// A Format writes the arguments of an event as a printf-like format says.
type Format struct {
	parts []part
}

// A part is literal text or one conversion.
type part struct {
	lit   string
	verb  byte   // 'd', 'u', 'x', 's', 'q'; '{' for a field; 0 for lit
	field string // for '{'
	left  bool   // '-' flag
	zero  bool   // '0' flag
	width int
}

// ParseFormat parses text with conversions, each of which but %{name}
// takes the next argument:
//
//	%d     the integer as written (a hex string in decimal)
//	%u     the integer as C's unsigned 64-bit: negative values in two's
//	       complement
//	%x     the same in hexadecimal, without 0x
//	%s     a string as it is, blanks and quotes included, unless it holds
//	       characters that are not printable (then as %q); any other
//	       value as AppendArgs writes it
//	%q     the value quoted as a Go string
//	%{name}  the sdtattach --types field name, as AppendArgs writes it
//	%%     a percent sign
//
// A flag - (align left) or 0 (pad numbers with zeros) and a width up to
// 1024 may come between % and the verb, as in %-8s or %016x.
func ParseFormat(f string) (*Format, error) {
	var parts []part
	var lit strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			lit.WriteByte(f[i])
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			lit.WriteByte('%')
			continue
		}
		if lit.Len() > 0 {
			parts = append(parts, part{lit: lit.String()})
			lit.Reset()
		}
		var p part
		for ; i < len(f) && (f[i] == '-' || f[i] == '0'); i++ {
			p.left = p.left || f[i] == '-'
			p.zero = p.zero || f[i] == '0'
		}
		for ; i < len(f) && f[i] >= '0' && f[i] <= '9'; i++ {
			p.width = p.width*10 + int(f[i]-'0')
			if p.width > 1024 {
				return nil, errors.New("width above 1024")
			}
		}
		if i == len(f) {
			return nil, errors.New("% at the end of the format")
		}
		switch p.verb = f[i]; p.verb {
		case 'd', 'u', 'x', 's', 'q':
		case '{':
			end := strings.IndexByte(f[i:], '}')
			if end < 0 {
				return nil, errors.New("%{ without }")
			}
			p.field = f[i+1 : i+end]
			if !fieldName(p.field) {
				return nil, fmt.Errorf("%%{%s}: not a field name", p.field)
			}
			i += end
		default:
			return nil, fmt.Errorf("%%%c: unknown verb (want %%d %%u %%x %%s %%q %%{name})", p.verb)
		}
		parts = append(parts, p)
	}
	if lit.Len() > 0 {
		parts = append(parts, part{lit: lit.String()})
	}
	return &Format{parts}, nil
}

// fieldName reports whether s can name a field: ASCII letters, digits
// and '_'.
func fieldName(s string) bool {
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// Append appends e's arguments as the format says. An argument of the
// wrong kind for its verb is written as %!d("text"), one that is missing
// as %!d(MISSING) or %!{name}(MISSING); null is "?" for every verb.
func (f *Format) Append(b []byte, e *ndjson.Event) []byte {
	arg := 0
	for i := range f.parts {
		p := &f.parts[i]
		if p.verb == 0 {
			b = append(b, p.lit...)
			continue
		}
		var v ndjson.Value
		var ok bool
		if p.verb == '{' {
			v, ok = e.Field(p.field)
		} else if ok = arg < len(e.Args); ok {
			v = e.Args[arg]
			arg++
		}
		start := len(b)
		if !ok {
			b = append(b, "%!"...)
			if p.verb == '{' {
				b = append(append(append(b, '{'), p.field...), '}')
			} else {
				b = append(b, p.verb)
			}
			b = append(b, "(MISSING)"...)
			continue
		}
		b = p.appendValue(b, v)
		b = p.pad(b, start)
	}
	return b
}

// appendValue converts one value. null is "?" whatever the verb.
func (p *part) appendValue(b []byte, v ndjson.Value) []byte {
	if v.Kind == ndjson.Null {
		return append(b, '?')
	}
	switch p.verb {
	case 'd':
		if v.Kind == ndjson.Uint || v.Kind == ndjson.Int || v.Kind == ndjson.Number {
			return v.AppendText(b)
		}
		if u, ok := v.Uint64(); ok {
			return strconv.AppendUint(b, u, 10)
		}
	case 'u':
		if u, ok := v.Uint64(); ok {
			return strconv.AppendUint(b, u, 10)
		}
		if v.Kind == ndjson.Number {
			return v.AppendText(b)
		}
	case 'x':
		if u, ok := v.Uint64(); ok {
			return strconv.AppendUint(b, u, 16)
		}
	case 's':
		if v.Kind == ndjson.String {
			return termtext.AppendPrintable(b, v.Str)
		}
		return v.AppendText(b)
	case 'q':
		if v.Kind == ndjson.String {
			return strconv.AppendQuote(b, v.Str)
		}
		return strconv.AppendQuote(b, v.String())
	case '{':
		return v.AppendText(b)
	}
	return append(append(append(append(b, "%!"...), p.verb), '('), v.String()+")"...)
}

// pad pads the conversion that starts at start to the part's width.
func (p *part) pad(b []byte, start int) []byte {
	n := len(b) - start
	if n >= p.width {
		return b
	}
	fill := p.width - n
	if p.left {
		for range fill {
			b = append(b, ' ')
		}
		return b
	}
	c := byte(' ')
	at := start
	if p.zero && p.verb != 's' && p.verb != 'q' && numeric(b[start:]) {
		c = '0'
		if b[start] == '-' {
			at++ // zeros go after the sign
		}
	}
	for range fill {
		b = append(b, 0)
	}
	copy(b[at+fill:], b[at:len(b)-fill])
	for i := at; i < at+fill; i++ {
		b[i] = c
	}
	return b
}

// numeric reports whether a conversion wrote a number, which '0' pads.
func numeric(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	return len(b) > 0 && b[0] >= '0' && b[0] <= '9'
}
