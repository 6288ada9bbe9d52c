package aggregate

import (
	"fmt"
	"io"
	"time"

	"github.com/sdtkit/sdtkit/internal/termtext"
)

// A Summary writes Records as WriteCounts, WriteHistograms and
// WriteStats write what they count: the records of one interval (one
// TS) make one summary, merged by group. A summary followed by another
// is headed by the time of its interval's end, as sdtfmt --interval
// heads its own.
type Summary struct {
	ts      int64
	n       int // records of the interval
	written int // summaries written
	counts  map[Group]uint64
	hists   map[Group]*Histogram
	stats   map[Group]*Stats
	lats    map[Group]*Latency // by END probe and key
	from    map[Group]string   // the START pattern of each
	pending uint64             // STARTs waiting, of every START probe
	by      []Key
	of      Key
	// Unread counts the hits the records report with a value that could
	// not be read, which the summaries leave out.
	Unread uint64
}

// Add adds a record, writing the summary of the interval before it to w
// when it starts another.
func (s *Summary) Add(w io.Writer, r *Record) error {
	if s.n > 0 && r.TS != s.ts {
		if err := s.Write(w, true); err != nil {
			return err
		}
	}
	if s.n == 0 {
		s.counts = make(map[Group]uint64)
		s.hists = make(map[Group]*Histogram)
		s.stats = make(map[Group]*Stats)
		s.lats = make(map[Group]*Latency)
		s.from = make(map[Group]string)
		s.pending = 0
	}
	s.ts, s.n = r.TS, s.n+1
	if r.Lost == 0 && !r.Start {
		s.by = r.Keys() // lost records and STARTs have none
	}
	s.Unread += r.Unread
	g := r.Group()
	switch {
	case r.Hist != Key{}:
		s.of = r.Hist
		h, ok := r.Histogram()
		if !ok {
			return nil // ParseRecord checked the buckets
		}
		if old := s.hists[g]; old != nil {
			for i := range NumBuckets {
				old.AddCount(i, h.Count(i))
			}
		} else {
			s.hists[g] = h
		}
	case r.Stats != Key{}:
		s.of = r.Stats
		st := s.stats[g]
		if st == nil {
			st = new(Stats)
			s.stats[g] = st
		}
		st.Merge(r.StatsOf())
	case r.Latency != Key{} && r.Start:
		s.pending += r.Pending
	case r.Latency != Key{}:
		l := s.lats[g]
		if l == nil {
			l = &Latency{Key: r.Latency}
			s.lats[g], s.from[g] = l, termtext.String(r.From)
		}
		if h, ok := r.Histogram(); ok {
			for i := range NumBuckets {
				l.Hist.AddCount(i, h.Count(i))
			}
		}
		l.Stats.Merge(r.StatsOf())
		l.Unmatched += r.Unmatched
	case r.Lost == 0:
		s.counts[g] += r.Count
	}
	return nil
}

// Write writes the summary of the interval, headed by its time when
// head is true, and starts the next.
func (s *Summary) Write(w io.Writer, head bool) error {
	if s.n == 0 {
		return nil
	}
	if head {
		fmt.Fprintf(w, "[%s]\n", time.Unix(0, s.ts).Format("15:04:05"))
	}
	err := WriteCounts(w, s.counts, s.by...)
	if err == nil {
		err = WriteHistograms(w, s.hists, s.of, s.by...)
	}
	if err == nil {
		err = WriteStats(w, s.stats, s.of, s.by...)
	}
	if err == nil {
		err = s.writeLatencies(w)
	}
	if head {
		io.WriteString(w, "\n")
	}
	s.n = 0
	s.written++
	return err
}

// Written returns the number of summaries written.
func (s *Summary) Written() int { return s.written }

// writeLatencies writes the latencies of each END probe and key as
// Latency.WriteText does, and the STARTs still waiting: in the text of
// the one latency, or on a line of their own when there are several,
// since the keys grouped by are read at ENDs.
func (s *Summary) writeLatencies(w io.Writer) error {
	gs := SortedGroups(s.lats)
	for i, g := range gs {
		if i > 0 {
			io.WriteString(w, "\n")
		}
		l := s.lats[g]
		if len(gs) == 1 {
			l.Pending = s.pending
		}
		if err := l.WriteText(w, s.from[g], byTitle(g.Probe(), g, s.by), nil); err != nil {
			return err
		}
	}
	if len(gs) != 1 && s.pending > 0 {
		_, err := fmt.Fprintf(w, "%d START without END yet\n", s.pending)
		return err
	}
	return nil
}
