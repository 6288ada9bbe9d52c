package main

import (
	"bufio"
	"io"

	"github.com/sdtkit/sdtkit/pkg/attach"
	"github.com/sdtkit/sdtkit/pkg/event"
)

// output writes events as NDJSON (package event) through a buffered
// writer and counts them. It is not safe for concurrent use.
type output struct {
	bw  *bufio.Writer
	buf []byte      // the line being written
	rec event.Event // the record of the event being written

	events   uint64
	perProbe []uint64 // events by probe index
	lost     uint64   // lost events reported in-band so far
	// skipped are hits that made no event for another reason than a
	// full ring buffer, for the summary.
	skipped uint64
}

func newOutput(w io.Writer, plan *attach.Plan) *output {
	return &output{bw: bufio.NewWriterSize(w, 64<<10), perProbe: make([]uint64, len(plan.Probes))}
}

// event writes one event, as doc.go specifies it.
func (o *output) event(ev *attach.Event) error {
	ev.Record(&o.rec)
	o.buf = event.AppendEvent(o.buf[:0], &o.rec)
	// Probes are added as the -c command loads libraries.
	for len(o.perProbe) <= ev.Site.ProbeIndex {
		o.perProbe = append(o.perProbe, 0)
	}
	o.perProbe[ev.Site.ProbeIndex]++
	o.events++
	_, err := o.bw.Write(o.buf)
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
	o.buf = event.AppendLost(o.buf[:0], n)
	_, err := o.bw.Write(o.buf)
	return err
}

func (o *output) flush() error { return o.bw.Flush() }
