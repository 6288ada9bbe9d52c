package termtext

import (
	"io"
	"strconv"
	"unicode/utf8"
)

// A writer escapes what Printable would refuse; see NewWriter.
type writer struct {
	w   io.Writer
	buf []byte
}

// NewWriter returns a writer for diagnostics, which quote paths, names and
// messages that files and traced programs choose: it writes to w what it
// is given, newlines and tabs included, with every control byte, C1
// control, invalid UTF-8 byte and unprintable character written as a Go
// escape (\x1b, \u2028). A character split across two writes is escaped
// byte by byte; the log package writes a message whole.
func NewWriter(w io.Writer) io.Writer { return &writer{w: w} }

func (e *writer) Write(p []byte) (int, error) {
	b := e.buf[:0]
	for i := 0; i < len(p); {
		c := p[i]
		if c == '\n' || c == '\t' || c >= ' ' && c < 0x7f {
			b = append(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && n == 1, r < ' ', r == 0x7f:
			b = append(b, `\x`...)
			b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		case strconv.IsPrint(r):
			b = append(b, p[i:i+n]...)
		default:
			q := strconv.QuoteRuneToASCII(r)
			b = append(b, q[1:len(q)-1]...)
		}
		i += n
	}
	e.buf = b
	if _, err := e.w.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}
