package main

import (
	"fmt"
	"io"
	"os"

	"github.com/sdtkit/sdtkit/pkg/ndjson"
	"github.com/sdtkit/sdtkit/pkg/stacks"
)

// stackCounts is --folded and --pprof: the events counted by their
// sdtattach --ustack stack.
type stackCounts struct {
	folded  bool   // write folded stacks to the output
	pprof   string // write a pprof profile to this file, when not ""
	set     stacks.Set
	without uint64 // events with no stack: not asked for, or none taken
}

func (s *stackCounts) event(e *ndjson.Event) {
	if !s.set.AddEvent(e) {
		s.without++
	}
}

func (s *stackCounts) report(w io.Writer) error {
	if s.folded {
		if err := s.set.WriteFolded(w); err != nil {
			return err
		}
	}
	if s.pprof == "" {
		return nil
	}
	f, err := os.Create(s.pprof)
	if err != nil {
		return fmt.Errorf("--pprof: %w", err)
	}
	if err := s.set.WritePprof(f); err != nil {
		f.Close()
		return fmt.Errorf("--pprof %s: %w", s.pprof, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--pprof: %w", err)
	}
	return nil
}

func (s *stackCounts) warnings() []string {
	if s.without == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d events carry no stack (sdtattach --ustack takes them, where the kernel can walk it): the stacks leave them out", s.without)}
}
