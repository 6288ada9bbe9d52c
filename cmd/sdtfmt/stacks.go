package main

import (
	"fmt"
	"io"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
	"github.com/sdtkit/sdtkit/pkg/stacks"
)

// stackCounts is --folded and --pprof: the events of sdtattach --ustack
// and the records of its --by ustack, counted by their stacks.
type stackCounts struct {
	folded  bool   // write folded stacks to the output
	pprof   string // write a pprof profile to this file, when not ""
	set     stacks.Set
	without uint64 // events with no stack: not asked for, or none taken
	recs    uint64 // hits of records with no stack
}

func (s *stackCounts) event(e *ndjson.Event) {
	if !s.set.AddEvent(e) {
		s.without++
	}
}

func (s *stackCounts) record(r *aggregate.Record) {
	if !s.set.AddRecord(r) {
		s.recs += r.Count + r.Lost
	}
}

func (s *stackCounts) report(w io.Writer) error {
	if s.folded {
		if err := s.set.WriteFolded(w); err != nil {
			return err
		}
	}
	if s.pprof != "" {
		if err := s.set.WritePprofFile(s.pprof); err != nil {
			return fmt.Errorf("--pprof: %w", err)
		}
	}
	return nil
}

func (s *stackCounts) warnings() []string {
	if s.without+s.recs == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d events carry no stack, and records of %d hits (sdtattach --ustack and --by ustack take them, where the kernel can walk it): the stacks leave them out", s.without, s.recs)}
}
