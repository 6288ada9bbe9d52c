package main

import (
	"io"

	json "github.com/goccy/go-json"

	"github.com/sdtkit/sdtkit/pkg/argspec"
)

// record is the JSON form of one site; doc.go specifies every field.
type record struct {
	File            string    `json:"file"`
	Provider        string    `json:"provider"`
	Name            string    `json:"name"`
	PC              uint64    `json:"pc"`
	Base            uint64    `json:"base"`
	Semaphore       uint64    `json:"semaphore"`
	Args            string    `json:"args"`
	PCOffset        uint64    `json:"pc_offset"`
	SemaphoreOffset uint64    `json:"semaphore_offset"`
	NotePC          *uint64   `json:"note_pc,omitempty"`
	NoteSemaphore   *uint64   `json:"note_semaphore,omitempty"`
	PCError         string    `json:"pc_error,omitempty"`
	SemaphoreError  string    `json:"semaphore_error,omitempty"`
	Argv            []argJSON `json:"argv"`

	PID                 int     `json:"pid,omitempty"`
	Addr                *uint64 `json:"addr,omitempty"`
	SemaphoreAddr       *uint64 `json:"semaphore_addr,omitempty"`
	SemaphoreValue      *uint16 `json:"semaphore_value,omitempty"`
	SemaphoreValueError string  `json:"semaphore_value_error,omitempty"`
	Armed               *bool   `json:"armed,omitempty"`
	ArmedError          string  `json:"armed_error,omitempty"`
}

// argJSON is the JSON form of one parsed argument.
type argJSON struct {
	Raw       string `json:"raw"`
	Size      int    `json:"size"`
	Signed    bool   `json:"signed"`
	Float     bool   `json:"float,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Location  string `json:"location,omitempty"`
	Reg       string `json:"reg,omitempty"`
	RegOffset *int   `json:"reg_offset,omitempty"`
	Index     string `json:"index,omitempty"`
	Scale     int    `json:"scale,omitempty"`
	Offset    *int64 `json:"offset,omitempty"`
	Value     *int64 `json:"value,omitempty"`
	Symbol    string `json:"symbol,omitempty"`
	Error     string `json:"error,omitempty"`
}

type ndjson struct {
	enc *json.Encoder
	rec record
}

func newNDJSON(w io.Writer) *ndjson {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &ndjson{enc: enc}
}

func (n *ndjson) write(s *site) error {
	p := s.probe
	n.rec = record{
		File:            s.file,
		Provider:        p.Provider,
		Name:            p.Name,
		PC:              p.PC,
		Base:            p.Base,
		Semaphore:       p.Semaphore,
		Args:            p.Args,
		PCOffset:        p.PCOffset,
		SemaphoreOffset: p.SemaphoreOffset,
		Argv:            appendArgs(n.rec.Argv[:0], s.argv),
	}
	r := &n.rec
	if p.Adjusted() {
		r.NotePC, r.NoteSemaphore = &p.NotePC, &p.NoteSemaphore
	}
	if p.PCOffsetErr != nil {
		r.PCError = p.PCOffsetErr.Error()
	}
	if p.SemaphoreOffsetErr != nil {
		r.SemaphoreError = p.SemaphoreOffsetErr.Error()
	}
	if l := s.live; l != nil {
		r.PID = l.pid
		if l.addr != 0 {
			r.Addr = &l.addr
		}
		if l.armedErr != nil {
			r.ArmedError = l.armedErr.Error()
		} else if l.addr != 0 {
			r.Armed = &l.armed
		}
		if p.HasSemaphore() {
			if l.semaphoreAddr != 0 {
				r.SemaphoreAddr = &l.semaphoreAddr
			}
			if l.semaphoreErr != nil {
				r.SemaphoreValueError = l.semaphoreErr.Error()
			} else {
				r.SemaphoreValue = &l.semaphoreValue
			}
		}
	}
	return n.enc.Encode(r)
}

func (n *ndjson) flush() error { return nil }

// appendArgs converts parsed arguments to their JSON form, reusing dst.
func appendArgs(dst []argJSON, args []argspec.Arg) []argJSON {
	for i := range args {
		a := &args[i]
		j := argJSON{Raw: a.Raw, Size: a.Size, Signed: a.Signed, Float: a.Float}
		if a.Err != nil {
			j.Error = a.Err.Error()
			dst = append(dst, j)
			continue
		}
		j.Kind = a.Kind.String()
		j.Location = a.Location()
		switch a.Kind {
		case argspec.Const:
			j.Value = &a.Offset
		case argspec.Register, argspec.FloatRegister:
			j.Reg = a.Base.Base
			j.RegOffset = regOffset(a.Base)
		case argspec.Memory:
			j.Reg, j.RegOffset, j.Offset = a.Base.Base, regOffset(a.Base), &a.Offset
		case argspec.SIB:
			j.Reg, j.RegOffset, j.Offset = a.Base.Base, regOffset(a.Base), &a.Offset
			j.Index, j.Scale = a.Index.Base, a.Scale
		case argspec.Symbol:
			j.Symbol, j.Offset = a.Symbol, &a.Offset
			j.Reg = a.Base.Base
		}
		dst = append(dst, j)
	}
	return dst
}

// regOffset is the pt_regs offset of r for JSON, absent when r is not in
// pt_regs or there is no register.
func regOffset(r argspec.Reg) *int {
	if r.Base == "" || r.Offset < 0 {
		return nil
	}
	off := r.Offset
	return &off
}
