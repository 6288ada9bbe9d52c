package main

import (
	"io"

	"github.com/sdtkit/sdtkit/internal/sitetable"
	"github.com/sdtkit/sdtkit/pkg/argspec"
)

// table writes sites as aligned columns for people.
type table struct {
	t    *sitetable.Table
	argv []argspec.Arg
}

func newTable(w io.Writer, live bool) *table { return &table{t: sitetable.New(w, live)} }

func (t *table) write(s *site) error {
	p := s.probe
	r := sitetable.Row{File: s.file, Provider: p.Provider, Name: p.Name, PC: p.PC, Semaphore: p.Semaphore, HasSemaphore: p.HasSemaphore()}
	if l := s.live; l != nil {
		r.PID, r.PC, r.Semaphore = l.pid, l.addr, l.semaphoreAddr
		r.SemaphoreValue, r.SemaphoreErr = uint64(l.semaphoreValue), l.semaphoreErr != nil
		r.Armed, r.ArmedErr, r.Orphaned = l.armed, l.armedErr != nil, l.orphaned
		if l.hook {
			r.Provider = "-"
		}
	}
	t.argv = argspec.AppendArgs(t.argv[:0], p.Args, s.machine)
	for _, a := range t.argv {
		if a.Err != nil {
			r.Args = append(r.Args, sitetable.Arg{Raw: a.Raw, Bad: true})
			continue
		}
		r.Args = append(r.Args, sitetable.Arg{Type: a.TypeName(), Location: a.Location()})
	}
	return t.t.Write(&r)
}

func (t *table) flush() error { return t.t.Flush() }
