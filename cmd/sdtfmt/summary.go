package main

import (
	"fmt"
	"io"

	"github.com/sdtkit/sdtkit/internal/cli"
	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/eventtext"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

// A summary is -c, --hist, --latency, or --folded and --pprof.
type summary interface {
	event(e *ndjson.Event)
	// report writes the summary and starts the next one.
	report(w io.Writer) error
	// warnings says what the summary had to leave out.
	warnings() []string
}

// counts is -c: the number of events per probe and --by key.
type counts struct {
	by aggregate.Key
	n  map[aggregate.Group]uint64
}

func (s *counts) event(e *ndjson.Event) { s.n[aggregate.GroupOf(e, s.by)]++ }

func (s *counts) report(w io.Writer) error {
	err := aggregate.WriteCounts(w, s.n, s.by)
	clear(s.n)
	return err
}

func (s *counts) warnings() []string { return nil }

// hists is --hist: a histogram per probe and --by key.
type hists struct {
	of, by  aggregate.Key
	h       map[aggregate.Group]*aggregate.Histogram
	missing uint64 // events without a numeric value
}

func (s *hists) event(e *ndjson.Event) {
	v, _ := s.of.Value(e)
	i, ok := aggregate.BucketValue(v)
	if !ok {
		s.missing++
		return
	}
	g := aggregate.GroupOf(e, s.by)
	h := s.h[g]
	if h == nil {
		h = new(aggregate.Histogram)
		s.h[g] = h
	}
	h.AddCount(i, 1)
}

func (s *hists) report(w io.Writer) error {
	err := aggregate.WriteHistograms(w, s.h, s.of, s.by)
	clear(s.h)
	return err
}

func (s *hists) warnings() []string {
	if s.missing == 0 {
		return nil
	}
	return []string{fmt.Sprintf("--hist %s: %d events had no numeric %s", s.of, s.missing, s.of)}
}

// slowest is how many of the slowest pairs --latency lists.
const slowest = 10

// latencySpec is --latency START,END[,KEY].
type latencySpec struct {
	start, end pattern
	key        aggregate.Key
}

func parseLatency(s string) (*latencySpec, error) {
	spec, err := aggregate.ParseLatency(s)
	if err != nil {
		return nil, err
	}
	l := latencySpec{key: spec.Pair}
	if l.start, err = parseProbe(spec.Start); err != nil {
		return nil, fmt.Errorf("%s: %w", cli.Shown(spec.Start), err)
	}
	if l.end, err = parseProbe(spec.End); err != nil {
		return nil, fmt.Errorf("%s: %w", cli.Shown(spec.End), err)
	}
	return &l, nil
}

// latency is --latency.
type latency struct {
	spec  *latencySpec
	clock *eventtext.Clock // for the START times of the slowest pairs
	l     *aggregate.Latency
}

func (s *latency) event(e *ndjson.Event) {
	s.l.Event(e, s.spec.start.match(e.Provider, e.Name), s.spec.end.match(e.Provider, e.Name))
}

func (s *latency) report(w io.Writer) error {
	var at func([]byte, int64) []byte
	if s.clock.Style != eventtext.TimeNone {
		at = s.clock.AppendTime
	}
	err := s.l.WriteText(w, s.spec.start.text, s.spec.end.text, at)
	s.l.Reset()
	return err
}

func (s *latency) warnings() []string { return nil }

// newSummary returns the summary c asks for, nil for the per-event view.
func newSummary(c *config, clock *eventtext.Clock) summary {
	switch {
	case c.count:
		return &counts{by: c.by, n: make(map[aggregate.Group]uint64)}
	case c.hist != aggregate.Key{}:
		return &hists{of: c.hist, by: c.by, h: make(map[aggregate.Group]*aggregate.Histogram)}
	case c.latency != nil:
		return &latency{spec: c.latency, clock: clock, l: aggregate.NewLatency(c.latency.key, slowest)}
	case c.folded || c.pprof != "":
		return &stackCounts{folded: c.folded, pprof: c.pprof}
	}
	return nil
}
