package aggregate

import (
	"fmt"
	"io"
	"time"
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
	}
	s.ts, s.n, s.by = r.TS, s.n+1, r.Keys()
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
	if head {
		io.WriteString(w, "\n")
	}
	s.n = 0
	s.written++
	return err
}

// Written returns the number of summaries written.
func (s *Summary) Written() int { return s.written }
