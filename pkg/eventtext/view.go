package eventtext

import (
	"io"
	"path"
	"strconv"
	"unicode/utf8"

	"github.com/sdtkit/sdtkit/internal/termtext"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

// Columns of a View, and the widths they start with.
const (
	colTime = iota
	colPID
	colTID
	colComm
	colProbe
	nCols
)

var (
	colNames  = [nCols]string{"TIME", "PID", "TID", "COMM", "PROBE"}
	relWidths = [nCols]int{10, 7, 7, 15, 24}
)

// A View writes one line per event, as bcc's trace does, under a header:
// TIME (in the view's TimeStyle; no column for TimeNone), PID, TID, COMM,
// PROBE (PROVIDER:NAME) and ARGS. A View never holds lines back to align
// them: a value that does not fit its column widens it, and the header
// is written again, with the new widths, above the line that holds it,
// so that every line is aligned with the header above it.
type View struct {
	w      io.Writer
	clock  Clock
	widths [nCols]int
	header bool
	buf    []byte
}

// NewView returns a View that writes to w, with times in style.
func NewView(w io.Writer, style TimeStyle) *View {
	v := &View{w: w, clock: Clock{Style: style}, widths: relWidths}
	if style == TimeAbs {
		v.widths[colTime] = len("15:04:05.000000")
	}
	return v
}

// appendCell appends text padded to the width of col, in characters, and
// the space that separates it from the next column.
func (v *View) appendCell(b, text []byte, col int) []byte {
	b = append(b, text...)
	for n := utf8.RuneCount(text); n < v.widths[col]; n++ {
		b = append(b, ' ')
	}
	return append(b, ' ')
}

func (v *View) appendHeader(b []byte) []byte {
	v.header = true
	for col, name := range colNames {
		if col == colTime && v.clock.Style == TimeNone {
			continue
		}
		b = v.appendCell(b, []byte(name), col)
	}
	return append(b, "ARGS\n"...)
}

// WriteEvent writes the line of e, after the header for the first and
// for one whose values widen a column. ARGS is f's text, or AppendArgs's
// when f is nil.
func (v *View) WriteEvent(e *ndjson.Event, f *Format) error {
	// The values are written first, unpadded, at the end of buf: their
	// widths tell whether the header comes again.
	b := v.buf[:0]
	var cells [nCols][2]int // start and end in b
	for col := range nCols {
		start := len(b)
		switch col {
		case colTime:
			if v.clock.Style != TimeNone {
				b = v.clock.AppendTime(b, e.TS)
			}
		case colPID:
			b = strconv.AppendInt(b, e.PID, 10)
		case colTID:
			b = strconv.AppendInt(b, e.TID, 10)
		case colComm:
			b = termtext.Append(b, e.Comm)
		case colProbe:
			b = AppendProbe(b, e.Provider, e.Name)
		}
		cells[col] = [2]int{start, len(b)}
	}
	grown := false
	for col, c := range cells {
		if n := utf8.RuneCount(b[c[0]:c[1]]); n > v.widths[col] {
			v.widths[col] = n
			grown = true
		}
	}
	line := len(b)
	if !v.header || grown {
		b = v.appendHeader(b)
	}
	for col, c := range cells {
		if col == colTime && v.clock.Style == TimeNone {
			continue
		}
		b = v.appendCell(b, b[c[0]:c[1]], col)
	}
	if f != nil {
		b = f.Append(b, e)
	} else {
		b = AppendArgs(b, e)
	}
	b = append(b, '\n')
	for i := range e.UStack {
		b = append(AppendFrame(append(b, "        "...), &e.UStack[i]), '\n')
	}
	v.buf = b
	_, err := v.w.Write(b[line:])
	return err
}

// AppendFrame appends a frame of a stack as bcc's trace -U shows it:
// SYM+0xOFF [FILE] (the file's base name), or 0xADDR [FILE+0xOFFSET]
// where no symbol is known, or 0xADDR alone.
func AppendFrame(b []byte, f *ndjson.Frame) []byte {
	if f.Sym != "" {
		b = termtext.Append(b, f.Sym)
		b = strconv.AppendUint(append(b, "+0x"...), f.Off, 16)
	} else {
		b = strconv.AppendUint(append(b, "0x"...), f.Addr, 16)
	}
	if f.File == "" {
		return b
	}
	b = termtext.Append(append(b, " ["...), path.Base(f.File))
	if f.Sym == "" {
		b = strconv.AppendUint(append(b, "+0x"...), f.FileOffset, 16)
	}
	return append(b, ']')
}

// WriteLost writes the line "WARNING: lost N events" in place.
func (v *View) WriteLost(n uint64) error {
	b := append(v.buf[:0], "WARNING: lost "...)
	b = strconv.AppendUint(b, n, 10)
	b = append(b, " events\n"...)
	v.buf = b
	_, err := v.w.Write(b)
	return err
}

// AppendArgs appends the arguments of e separated by spaces, or when e
// has sdtattach --types fields, those as NAME=VALUE; each value as
// ndjson.Value.AppendText writes it.
func AppendArgs(b []byte, e *ndjson.Event) []byte {
	if len(e.Fields) > 0 {
		for i, f := range e.Fields {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(termtext.Append(b, f.Name), '=')
			b = f.Value.AppendText(b)
		}
		return b
	}
	for i, a := range e.Args {
		if i > 0 {
			b = append(b, ' ')
		}
		b = a.AppendText(b)
	}
	return b
}

// AppendProbe appends PROVIDER:NAME with each part as a terminal shows it
// safely: as it is, or quoted as in Go when it could be misread.
func AppendProbe(b []byte, provider, name string) []byte {
	return termtext.Append(append(termtext.Append(b, provider), ':'), name)
}
