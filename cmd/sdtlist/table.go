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
	r := sitetable.Row{File: s.file, Provider: p.Provider, Name: p.Name, PC: p.PC, Semaphore: p.Semaphore, HasSemaphore: p.HasSemaphore(), Insn: p.Insn.String()}
	if l := s.live; l != nil {
		// Run-time addresses, 0 where not known.
		r.PID, r.PC, r.Semaphore = l.Object.Pid, l.Addr, 0
		if sem := l.Semaphore; sem != nil {
			r.Semaphore, r.SemaphoreValue, r.SemaphoreErr = sem.Addr, uint64(sem.Value), sem.Err != nil
		}
		r.Armed, r.ArmedErr, r.Orphaned = l.Armed, l.ArmedErr != nil, l.Orphaned
		if l.Hook {
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
