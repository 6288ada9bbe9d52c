package main

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"math"
	"strconv"

	json "github.com/goccy/go-json"

	"github.com/sdtkit/sdtkit/bpf"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

// record is the JSON object of one event; doc.go specifies the fields.
type record struct {
	TS        int64   `json:"ts"`
	PID       uint32  `json:"pid"`
	TID       uint32  `json:"tid"`
	Comm      string  `json:"comm"`
	CPU       uint32  `json:"cpu"`
	Provider  string  `json:"provider"`
	Name      string  `json:"name"`
	Args      []any   `json:"args"`
	Fields    *fields `json:"fields,omitempty"`
	Truncated []int   `json:"truncated,omitempty"`
}

type lostRecord struct {
	Lost uint64 `json:"lost"`
}

// fields is the "fields" object: the arguments by name, in argument order
// (a Go map would sort them).
type fields struct {
	names []string
	vals  []any
}

func (f *fields) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, n := range f.names {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.MarshalWithOption(n, json.DisableHTMLEscape())
		if err != nil {
			return nil, err
		}
		v, err := json.MarshalWithOption(f.vals[i], json.DisableHTMLEscape())
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// output writes events as NDJSON through a buffered writer and counts
// them. It is not safe for concurrent use.
type output struct {
	bw     *bufio.Writer
	enc    *json.Encoder
	sites  []*site
	logger *log.Logger

	rec    record
	fields fields
	events uint64
	lost   uint64 // lost events reported in-band so far
	// skipped are hits that made no event for another reason than a
	// full ring buffer, for the summary.
	skipped uint64
}

func newOutput(w io.Writer, sites []*site, logger *log.Logger) *output {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &output{bw: bw, enc: enc, sites: sites, logger: logger}
}

// event writes one event.
func (o *output) event(ev *bpf.Event) error {
	if int(ev.Site) >= len(o.sites) {
		return fmt.Errorf("event of unknown site %d", ev.Site)
	}
	s := o.sites[ev.Site]
	r := &o.rec
	r.TS = ev.Time.UnixNano()
	r.PID, r.TID, r.CPU, r.Comm = ev.PID, ev.TID, ev.CPU, ev.Comm
	r.Provider, r.Name = s.probe.provider, s.probe.name
	r.Args = r.Args[:0]
	r.Truncated = r.Truncated[:0]
	r.Fields = nil
	o.fields.names = o.fields.names[:0]
	o.fields.vals = o.fields.vals[:0]
	for i := range ev.Args {
		var a argPlan
		if i < len(s.args) {
			a = s.args[i]
		}
		if a.typ.Kind == probespec.Drop {
			continue
		}
		v := ev.Args[i]
		if v.Kind == bpf.NotRead && !s.noted.Has(i) {
			s.noted |= 1 << i
			o.logger.Printf("%s: %v: argument %d %q could not be read (pid %d); shown as null",
				s.probe.target.name, s.probe, i+1, a.raw, ev.PID)
		}
		if v.Kind == bpf.String && v.Truncated {
			r.Truncated = append(r.Truncated, len(r.Args))
		}
		x := value(v, a.typ)
		r.Args = append(r.Args, x)
		if s.fields {
			o.fields.names = append(o.fields.names, a.name)
			o.fields.vals = append(o.fields.vals, x)
		}
	}
	if s.fields {
		r.Fields = &o.fields
	}
	s.probe.events++
	o.events++
	return o.enc.Encode(r)
}

// value converts an argument to the Go value whose JSON shows it as typ
// asks: nil (null) when it was not read.
func value(v bpf.Value, typ probespec.Type) any {
	switch v.Kind {
	case bpf.NotRead:
		return nil
	case bpf.String:
		if typ.Kind == probespec.String {
			return v.Str
		}
	}
	switch typ.Kind {
	case probespec.Int:
		if typ.Signed {
			return int64(v.As(typ.Size, true))
		}
		return v.As(typ.Size, false)
	case probespec.Hex:
		size := v.Size
		if size <= 0 || size > 8 {
			size = 8
		}
		return "0x" + strconv.FormatUint(v.As(size, false), 16)
	}
	switch v.Kind {
	case bpf.Int:
		return int64(v.Bits)
	case bpf.Float:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		return f
	}
	return v.Bits
}

// lostEvents writes {"lost":N} for the events dropped since the last
// report, given the total so far.
func (o *output) lostEvents(total uint64) error {
	if total <= o.lost {
		return nil
	}
	n := total - o.lost
	o.lost = total
	return o.enc.Encode(lostRecord{n})
}

func (o *output) flush() error { return o.bw.Flush() }
