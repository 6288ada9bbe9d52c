package stacks

import (
	"fmt"
	"io"
	"os"

	"github.com/google/pprof/profile"
	"github.com/sdtkit/sdtkit/pkg/symbolize"
)

// Profile returns the stacks of s as a pprof profile with one sample
// value, the count, of type SampleType and unit "count". Each file is a
// Mapping with its build-id, spanning the addresses seen in it, with its
// functions given (HasFunctions), so that pprof does not look for the
// file to symbolize it again; each address of a file is a Location, and
// each name a Function.
func (s *Set) Profile() *profile.Profile {
	typ := s.SampleType
	if typ == "" {
		typ = "hits"
	}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: typ, Unit: "count"}},
	}
	type fileKey struct{ file, buildID string }
	type locKey struct {
		addr      uint64
		file, sym string
	}
	mappings := make(map[fileKey]*profile.Mapping)
	functions := make(map[string]*profile.Function)
	locations := make(map[locKey]*profile.Location)

	mapping := func(f symbolize.Frame) *profile.Mapping {
		if f.File == "" {
			return nil
		}
		k := fileKey{f.File, f.BuildID}
		m, ok := mappings[k]
		if !ok {
			m = &profile.Mapping{
				ID: uint64(len(p.Mapping) + 1), File: f.File, BuildID: f.BuildID,
				Start: f.Addr, Limit: f.Addr + 1, Offset: f.FileOffset,
				HasFunctions: true,
			}
			mappings[k] = m
			p.Mapping = append(p.Mapping, m)
		}
		if f.Addr < m.Start {
			m.Start, m.Offset = f.Addr, f.FileOffset
		}
		m.Limit = max(m.Limit, f.Addr+1)
		return m
	}
	function := func(name string) *profile.Function {
		fn, ok := functions[name]
		if !ok {
			fn = &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name}
			functions[name] = fn
			p.Function = append(p.Function, fn)
		}
		return fn
	}
	for _, smp := range s.samples {
		locs := make([]*profile.Location, len(smp.frames))
		for i, f := range smp.frames {
			k := locKey{f.Addr, f.File, f.Sym}
			loc, ok := locations[k]
			if !ok {
				loc = &profile.Location{
					ID:      uint64(len(p.Location) + 1),
					Mapping: mapping(f),
					Address: f.Addr,
					Line:    []profile.Line{{Function: function(Name(f))}},
				}
				locations[k] = loc
				p.Location = append(p.Location, loc)
			}
			locs[i] = loc
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{smp.count}})
	}
	return p
}

// WritePprof writes the stacks of s as a gzipped pprof profile.
func (s *Set) WritePprof(w io.Writer) error {
	p := s.Profile()
	if err := p.CheckValid(); err != nil {
		return fmt.Errorf("write pprof profile: %w", err)
	}
	if err := p.Write(w); err != nil {
		return fmt.Errorf("write pprof profile: %w", err)
	}
	return nil
}

// WritePprofFile writes the stacks of s as a gzipped pprof profile to
// the file name, made or emptied.
func (s *Set) WritePprofFile(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := s.WritePprof(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", name, err)
	}
	return f.Close()
}
