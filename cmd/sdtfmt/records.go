package main

import (
	"fmt"
	"io"
	"time"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
)

// records renders the aggregate records of sdtattach --count, --hist and
// --stats as -c and --hist render events: the records of one interval
// (one ts) make one summary. A summary followed by another is headed by
// the time of its interval's end, as --interval heads them.
type records struct {
	ts      int64
	n       int // records of the interval
	written int // summaries written
	counts  map[aggregate.Group]uint64
	hists   map[aggregate.Group]*aggregate.Histogram
	stats   map[aggregate.Group]*aggregate.Stats
	by      []aggregate.Key
	of      aggregate.Key
	unread  uint64
	lost    uint64 // hits that found the map full
}

// add adds a record, writing the summary of the interval before it when
// it starts another.
func (s *records) add(w io.Writer, r *aggregate.Record) error {
	if s.n > 0 && r.TS != s.ts {
		if err := s.write(w, true); err != nil {
			return err
		}
	}
	if s.n == 0 {
		s.counts = make(map[aggregate.Group]uint64)
		s.hists = make(map[aggregate.Group]*aggregate.Histogram)
		s.stats = make(map[aggregate.Group]*aggregate.Stats)
	}
	s.ts, s.n, s.by = r.TS, s.n+1, r.Keys()
	s.unread += r.Unread
	g := r.Group()
	switch {
	case r.Hist != aggregate.Key{}:
		s.of = r.Hist
		h, ok := r.Histogram()
		if !ok {
			return nil // ParseRecord checked the buckets
		}
		if old := s.hists[g]; old != nil {
			for i := range aggregate.NumBuckets {
				old.AddCount(i, h.Count(i))
			}
		} else {
			s.hists[g] = h
		}
	case r.Stats != aggregate.Key{}:
		s.of = r.Stats
		st := s.stats[g]
		if st == nil {
			st = new(aggregate.Stats)
			s.stats[g] = st
		}
		st.Merge(r.StatsOf())
	case r.Lost == 0:
		s.counts[g] += r.Count
	}
	return nil
}

// write writes the summary of the interval, headed by its time when
// head is true, and starts the next.
func (s *records) write(w io.Writer, head bool) error {
	if s.n == 0 {
		return nil
	}
	if head {
		fmt.Fprintf(w, "[%s]\n", time.Unix(0, s.ts).Format("15:04:05"))
	}
	err := aggregate.WriteCounts(w, s.counts, s.by...)
	if err == nil {
		err = aggregate.WriteHistograms(w, s.hists, s.of, s.by...)
	}
	if err == nil {
		err = aggregate.WriteStats(w, s.stats, s.of, s.by...)
	}
	if head {
		io.WriteString(w, "\n")
	}
	s.n = 0
	s.written++
	return err
}
