package eventtext

import (
	"io"
	"strconv"

	"github.com/sdtkit/sdtkit/internal/termtext"
	"github.com/sdtkit/sdtkit/pkg/event"
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
// PROBE (PROVIDER:NAME) and ARGS. A column grows, for the lines after,
// when a value does not fit: a View never holds lines back to align them.
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

// cell pads the column that starts at start and ends b, and adds the
// space that separates it from the next.
func (v *View) cell(b []byte, start, col int) []byte {
	n := len(b) - start
	if n > v.widths[col] {
		v.widths[col] = n
	}
	for ; n < v.widths[col]; n++ {
		b = append(b, ' ')
	}
	return append(b, ' ')
}

func (v *View) writeHeader() error {
	v.header = true
	b := v.buf[:0]
	for col, name := range colNames {
		if col == colTime && v.clock.Style == TimeNone {
			continue
		}
		start := len(b)
		b = v.cell(append(b, name...), start, col)
	}
	b = append(b, "ARGS\n"...)
	v.buf = b
	_, err := v.w.Write(b)
	return err
}

// WriteEvent writes the line of e, after the header for the first. ARGS
// is f's text, or AppendArgs's when f is nil.
func (v *View) WriteEvent(e *event.Event, f *Format) error {
	if !v.header {
		if err := v.writeHeader(); err != nil {
			return err
		}
	}
	b := v.buf[:0]
	if v.clock.Style != TimeNone {
		b = v.cell(v.clock.AppendTime(b, e.TS), 0, colTime)
	}
	start := len(b)
	b = v.cell(strconv.AppendInt(b, e.PID, 10), start, colPID)
	start = len(b)
	b = v.cell(strconv.AppendInt(b, e.TID, 10), start, colTID)
	start = len(b)
	b = v.cell(termtext.Append(b, e.Comm), start, colComm)
	start = len(b)
	b = v.cell(AppendProbe(b, e.Provider, e.Name), start, colProbe)
	if f != nil {
		b = f.Append(b, e)
	} else {
		b = AppendArgs(b, e)
	}
	b = append(b, '\n')
	v.buf = b
	_, err := v.w.Write(b)
	return err
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
// event.Value.AppendText writes it.
func AppendArgs(b []byte, e *event.Event) []byte {
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
