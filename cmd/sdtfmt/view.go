package main

import (
	"io"
	"strconv"

	"github.com/sdtkit/sdtkit/internal/termtext"
	"github.com/sdtkit/sdtkit/pkg/event"
)

// Columns of the per-event view, and the widths they start with. A
// column grows, for the lines after, when a value does not fit: the view
// never waits for the rest of the input to align it.
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

// view writes one line per event.
type view struct {
	w         io.Writer
	clock     clock
	widths    [nCols]int
	templates []*template
	chosen    map[probeName]*template
	header    bool
	buf       []byte
}

type probeName struct{ provider, name string }

func newView(w io.Writer, c *config) *view {
	v := &view{w: w, clock: clock{style: c.time}, widths: relWidths, templates: c.templates}
	if c.time == timeAbs {
		v.widths[colTime] = len("15:04:05.000000")
	}
	if len(c.templates) > 0 {
		v.chosen = make(map[probeName]*template)
	}
	return v
}

// cell pads the column that starts at start and ends b, and adds the
// space that separates it from the next.
func (v *view) cell(b []byte, start, col int) []byte {
	n := len(b) - start
	if n > v.widths[col] {
		v.widths[col] = n
	}
	for ; n < v.widths[col]; n++ {
		b = append(b, ' ')
	}
	return append(b, ' ')
}

func (v *view) writeHeader() error {
	v.header = true
	b := v.buf[:0]
	for col, name := range colNames {
		if col == colTime && v.clock.style == timeNone {
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

func (v *view) event(e *event.Event) error {
	if !v.header {
		if err := v.writeHeader(); err != nil {
			return err
		}
	}
	b := v.buf[:0]
	if v.clock.style != timeNone {
		b = v.cell(v.clock.appendTime(b, e.TS), 0, colTime)
	}
	start := len(b)
	b = v.cell(strconv.AppendInt(b, e.PID, 10), start, colPID)
	start = len(b)
	b = v.cell(strconv.AppendInt(b, e.TID, 10), start, colTID)
	start = len(b)
	b = v.cell(termtext.Append(b, e.Comm), start, colComm)
	start = len(b)
	b = v.cell(appendProbe(b, e.Provider, e.Name), start, colProbe)
	if t := v.template(e); t != nil {
		b = t.appendText(b, e)
	} else {
		b = appendArgs(b, e)
	}
	b = append(b, '\n')
	v.buf = b
	_, err := v.w.Write(b)
	return err
}

// template returns the first -f template matching e's probe.
func (v *view) template(e *event.Event) *template {
	if v.chosen == nil {
		return nil
	}
	p := probeName{e.Provider, e.Name}
	t, ok := v.chosen[p]
	if !ok {
		for _, t = range v.templates {
			if t.probe.match(e.Provider, e.Name) {
				break
			}
			t = nil
		}
		v.chosen[p] = t
	}
	return t
}

func (v *view) lost(n uint64) error {
	b := append(v.buf[:0], "WARNING: lost "...)
	b = strconv.AppendUint(b, n, 10)
	b = append(b, " events\n"...)
	v.buf = b
	_, err := v.w.Write(b)
	return err
}

// appendArgs appends the arguments separated by spaces, or with sdtattach
// --types the fields as NAME=VALUE.
func appendArgs(b []byte, e *event.Event) []byte {
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

// appendProbe appends PROVIDER:NAME with each part as termtext writes it.
func appendProbe(b []byte, provider, name string) []byte {
	return termtext.Append(append(termtext.Append(b, provider), ':'), name)
}

// probeText returns PROVIDER:NAME as appendProbe writes it.
func probeText(provider, name string) string {
	return string(appendProbe(nil, provider, name))
}
