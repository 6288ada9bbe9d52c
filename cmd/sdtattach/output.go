package main

import (
	"bufio"
	"io"
	"log"
	"strconv"

	json "github.com/goccy/go-json"

	"github.com/sdtkit/sdtkit/internal/jsonenc"
	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/bpf"
	"github.com/sdtkit/sdtkit/pkg/probespec"
)

type lostRecord struct {
	Lost uint64 `json:"lost"`
}

// output writes events as NDJSON through a buffered writer and counts
// them. It is not safe for concurrent use.
type output struct {
	bw     *bufio.Writer
	enc    *json.Encoder
	logger *log.Logger
	// noted are, by site number, the arguments already reported as
	// unreadable.
	noted []bpf.ArgMask

	buf      []byte   // the event being encoded
	vals     [][2]int // where each argument's value is in buf
	names    []string // with --types: each argument's field name
	trunc    []int    // the arguments truncated
	events   uint64
	perProbe []uint64 // events by probe index
	lost     uint64   // lost events reported in-band so far
	// skipped are hits that made no event for another reason than a
	// full ring buffer, for the summary.
	skipped uint64
}

func newOutput(w io.Writer, plan *attach.Plan, logger *log.Logger) *output {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	noted := make([]bpf.ArgMask, len(plan.Sites))
	for i, s := range plan.Sites {
		noted[i] = s.Reported
	}
	return &output{bw: bw, enc: enc, logger: logger, noted: noted, perProbe: make([]uint64, len(plan.Probes))}
}

// event writes one event, as doc.go specifies it: {"ts":..,"pid":..,
// "tid":..,"comm":..,"cpu":..,"provider":..,"name":..,"args":[..]}, then
// "fields":{..} with names and "truncated":[..] when strings were cut.
func (o *output) event(ev *attach.Event) error {
	s := ev.Site
	noted := &o.noted[ev.Event.Site]
	b := append(o.buf[:0], `{"ts":`...)
	b = strconv.AppendInt(b, ev.Time.UnixNano(), 10)
	b = append(b, `,"pid":`...)
	b = strconv.AppendUint(b, uint64(ev.PID), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendUint(b, uint64(ev.TID), 10)
	b = append(b, `,"comm":`...)
	b = jsonenc.AppendString(b, ev.Comm)
	b = append(b, `,"cpu":`...)
	b = strconv.AppendUint(b, uint64(ev.CPU), 10)
	b = append(b, `,"provider":`...)
	b = jsonenc.AppendString(b, s.Probe.Provider)
	b = append(b, `,"name":`...)
	b = jsonenc.AppendString(b, s.Probe.Name)
	b = append(b, `,"args":[`...)
	o.vals, o.trunc, o.names = o.vals[:0], o.trunc[:0], o.names[:0]
	for i := range ev.Args {
		var a attach.Arg
		if i < len(s.Args) {
			a = s.Args[i]
		}
		if a.Type.Kind == probespec.Drop {
			continue
		}
		v := &ev.Args[i]
		if v.Kind == bpf.NotRead && !noted.Has(i) {
			*noted |= 1 << i
			o.logger.Printf("%s: %v: arg%d %q could not be read (pid %d); shown as null",
				s.Probe.Target.Name, s.Probe, i, a.Raw, ev.PID)
		}
		if v.Kind == bpf.String && v.Truncated {
			o.trunc = append(o.trunc, len(o.vals))
		}
		if len(o.vals) > 0 {
			b = append(b, ',')
		}
		start := len(b)
		b = appendValue(b, *v, a.Type)
		o.vals = append(o.vals, [2]int{start, len(b)})
		if s.Fields {
			o.names = append(o.names, a.Name)
		}
	}
	b = append(b, ']')
	if s.Fields {
		b = append(b, `,"fields":{`...)
		for j, name := range o.names {
			if j > 0 {
				b = append(b, ',')
			}
			b = jsonenc.AppendString(b, name)
			b = append(b, ':')
			b = append(b, b[o.vals[j][0]:o.vals[j][1]]...)
		}
		b = append(b, '}')
	}
	if len(o.trunc) > 0 {
		b = append(b, `,"truncated":[`...)
		for i, t := range o.trunc {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(t), 10)
		}
		b = append(b, ']')
	}
	b = append(b, '}', '\n')
	o.buf = b
	o.perProbe[s.ProbeIndex]++
	o.events++
	_, err := o.bw.Write(b)
	return err
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
