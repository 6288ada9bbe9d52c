package main

import (
	"io"

	"github.com/sdtkit/sdtkit/internal/sitetable"
	"github.com/sdtkit/sdtkit/pkg/argspec"
	"github.com/sdtkit/sdtkit/pkg/ndjson"
)

// siteTable writes sdtlist's probe sites as sdtlist -t does. Whether the
// columns are those of a process is decided by the first site: sdtlist -p
// gives every site a pid.
type siteTable struct {
	w io.Writer
	t *sitetable.Table
}

func newSiteTable(w io.Writer) *siteTable { return &siteTable{w: w} }

func (t *siteTable) write(s *ndjson.Site) {
	if t.t == nil {
		t.t = sitetable.New(t.w, s.PID != 0)
	}
	r := sitetable.Row{PID: s.PID, File: s.File, Provider: s.Provider, Name: s.Name, PC: s.PC, Semaphore: s.Semaphore, HasSemaphore: s.Semaphore != 0, Insn: s.Insn}
	if s.PID != 0 {
		r.PC, r.Semaphore = s.Addr, s.SemaphoreAddr
		r.SemaphoreErr = s.SemaphoreValueError != "" || s.SemaphoreValue == nil
		if s.SemaphoreValue != nil {
			r.SemaphoreValue = *s.SemaphoreValue
		}
		r.Armed, r.ArmedErr, r.Orphaned = s.Armed, s.ArmedError != "", s.Orphaned
	}
	for _, a := range s.Argv {
		if a.Error != "" {
			r.Args = append(r.Args, sitetable.Arg{Raw: a.Raw, Bad: true})
			continue
		}
		r.Args = append(r.Args, sitetable.Arg{Type: argspec.TypeName(a.Size, a.Signed, a.Float), Location: a.Location})
	}
	t.t.Write(&r)
}

func (t *siteTable) flush() error {
	if t.t == nil {
		return nil
	}
	return t.t.Flush()
}
