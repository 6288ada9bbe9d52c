package stacks

import (
	"strconv"
	"strings"

	"github.com/sdtkit/sdtkit/pkg/aggregate"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

// A Set counts stacks. The zero Set is empty and ready to use.
type Set struct {
	// SampleType names what is counted in a pprof profile: "hits" when
	// empty.
	SampleType string

	index   map[string]int
	samples []sample
	scratch []symbolize.Frame // AddEvent's frames
}

type sample struct {
	frames []symbolize.Frame // innermost first
	count  int64
}

// Add counts n more of the stack frames, innermost frame first. Stacks
// are the same when their frames have the same addresses, files and
// symbols.
func (s *Set) Add(frames []symbolize.Frame, n int64) {
	if s.index == nil {
		s.index = make(map[string]int)
	}
	k := key(frames)
	if i, ok := s.index[k]; ok {
		s.samples[i].count += n
		return
	}
	s.index[k] = len(s.samples)
	s.samples = append(s.samples, sample{frames: append([]symbolize.Frame(nil), frames...), count: n})
}

// AddEvent counts one more of the stack of e, an event of sdtattach
// --ustack as package ndjson reads it, and reports whether it had one:
// an event without a stack, or with an empty one, is not counted.
func (s *Set) AddEvent(e *ndjson.Event) bool {
	if len(e.UStack) == 0 {
		return false
	}
	s.scratch = s.scratch[:0]
	for _, f := range e.UStack {
		s.scratch = append(s.scratch, symbolize.Frame(f))
	}
	s.Add(s.scratch, 1)
	return true
}

// AddRecord counts the hits of r, a record of sdtattach --by ustack as
// package aggregate reads it, by its stack: its Count (hits, values of a
// histogram, or pairs of a latency) added to the stack of its ustack key.
// It reports whether the record had a stack: a record not grouped by
// one, one whose stack could not be taken (null), one of lost hits and
// a latency's START record are not counted.
func (s *Set) AddRecord(r *aggregate.Record) bool {
	for _, kv := range r.By {
		if kv.Key.Kind != aggregate.KeyUStack {
			continue
		}
		frames, err := aggregate.StackFrames(kv.Value)
		if err != nil || len(frames) == 0 {
			return false
		}
		s.scratch = s.scratch[:0]
		for _, f := range frames {
			s.scratch = append(s.scratch, symbolize.Frame(f))
		}
		s.Add(s.scratch, int64(r.Count))
		return true
	}
	return false
}

// Len returns the number of distinct stacks.
func (s *Set) Len() int { return len(s.samples) }

func key(frames []symbolize.Frame) string {
	var b strings.Builder
	for _, f := range frames {
		b.WriteString(strconv.FormatUint(f.Addr, 16))
		b.WriteByte(0)
		b.WriteString(f.File)
		b.WriteByte(0)
		b.WriteString(f.Sym)
		b.WriteByte(0)
	}
	return b.String()
}

// Name returns the name a frame has in folded stacks and in a profile:
// its symbol, else its file's base name and file offset
// ("libc.so.6+0x2a1ca"), else its address ("0x7f3a1c02a1ca").
func Name(f symbolize.Frame) string {
	switch {
	case f.Sym != "":
		return f.Sym
	case f.File != "":
		return baseName(f.File) + "+0x" + strconv.FormatUint(f.FileOffset, 16)
	}
	return "0x" + strconv.FormatUint(f.Addr, 16)
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
