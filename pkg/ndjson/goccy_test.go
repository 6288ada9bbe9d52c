package ndjson

import (
	"bytes"
	"errors"
	"strconv"

	json "github.com/goccy/go-json"
)

// The records as github.com/goccy/go-json writes and reads them through
// struct tags, the other way to implement this package: the benchmarks
// measure the hand-written encoders and scanner against it, and the tests
// check that both write the same bytes.

// goccyEvent is an event for json.Marshal.
type goccyEvent struct {
	TS        int64         `json:"ts"`
	PID       int64         `json:"pid"`
	TID       int64         `json:"tid"`
	Comm      string        `json:"comm"`
	CPU       int64         `json:"cpu"`
	Provider  string        `json:"provider"`
	Name      string        `json:"name"`
	Args      []goccyValue  `json:"args"`
	Fields    *goccyFields  `json:"fields,omitempty"`
	Truncated []int         `json:"truncated,omitempty"`
	UStack    *[]goccyFrame `json:"ustack,omitempty"`
	Lost      *uint64       `json:"lost,omitempty"`
}

// goccyFrame is a Frame, whose off goes with its sym.
type goccyFrame Frame

func (f goccyFrame) MarshalJSON() ([]byte, error) { return (*Frame)(&f).AppendJSON(nil), nil }

// goccyValue is a Value, which JSON cannot tell apart by Go type.
type goccyValue Value

func (v goccyValue) MarshalJSON() ([]byte, error) { return Value(v).AppendJSON(nil), nil }

// UnmarshalJSON classifies a value as the scanner does, with the JSON
// package decoding escaped strings.
func (v *goccyValue) UnmarshalJSON(b []byte) error {
	switch c := b[0]; {
	case c == 'n':
		*v = goccyValue{}
	case c == '"':
		if bytes.IndexByte(b, '\\') < 0 {
			*v = goccyValue{Kind: String, Str: string(b[1 : len(b)-1])}
			return nil
		}
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*v = goccyValue{Kind: String, Str: s}
	case c == '-' || '0' <= c && c <= '9':
		if u, err := strconv.ParseUint(string(b), 10, 64); err == nil {
			*v = goccyValue{Kind: Uint, Uint: u}
		} else if i, err := strconv.ParseInt(string(b), 10, 64); err == nil && i != 0 {
			*v = goccyValue{Kind: Int, Int: i}
		} else if i == 0 && err == nil {
			*v = goccyValue{Kind: Uint}
		} else {
			*v = goccyValue{Kind: Number, Str: string(b)}
		}
	default:
		*v = goccyValue{Kind: JSON, Str: string(b)}
	}
	return nil
}

// goccyFields is an object whose members keep their order.
type goccyFields []Field

func (f goccyFields) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, x := range f {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.MarshalNoEscape(x.Name)
		b = append(append(b, k...), ':')
		b = x.Value.AppendJSON(b)
	}
	return append(b, '}'), nil
}

func (f *goccyFields) UnmarshalJSON(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return errors.New("fields: not an object")
	}
	*f = (*f)[:0]
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return err
		}
		var v goccyValue
		if err := d.Decode(&v); err != nil {
			return err
		}
		*f = append(*f, Field{t.(string), Value(v)})
	}
	return nil
}

// toGoccy converts e, reusing the Args of g.
func toGoccy(g *goccyEvent, e *Event) {
	args := g.Args[:0]
	if args == nil {
		args = []goccyValue{}
	}
	for _, v := range e.Args {
		args = append(args, goccyValue(v))
	}
	*g = goccyEvent{TS: e.TS, PID: e.PID, TID: e.TID, Comm: e.Comm, CPU: e.CPU,
		Provider: e.Provider, Name: e.Name, Args: args, Truncated: e.Truncated}
	if e.Fields != nil {
		g.Fields = (*goccyFields)(&e.Fields)
	}
	if e.UStack != nil {
		frames := make([]goccyFrame, len(e.UStack))
		for i, f := range e.UStack {
			frames[i] = goccyFrame(f)
		}
		g.UStack = &frames
	}
}

// fromGoccy converts g into e.
func fromGoccy(e *Event, g *goccyEvent) {
	args := e.Args[:0]
	for _, v := range g.Args {
		args = append(args, Value(v))
	}
	*e = Event{TS: g.TS, PID: g.PID, TID: g.TID, Comm: g.Comm, CPU: g.CPU,
		Provider: g.Provider, Name: g.Name, Args: args, Truncated: g.Truncated}
	if g.Fields != nil {
		e.Fields = *g.Fields
	}
	if g.Lost != nil {
		e.Lost = *g.Lost
	}
}

// goccySite is a site for json.Marshal, with pointers where a zero value
// is written but an absent one is not. The members of a symbol operand
// come in the order of a memory operand's.
type goccySite struct {
	File            string     `json:"file"`
	Provider        string     `json:"provider"`
	Name            string     `json:"name"`
	PC              uint64     `json:"pc"`
	Base            uint64     `json:"base"`
	Semaphore       uint64     `json:"semaphore"`
	Args            string     `json:"args"`
	PCOffset        uint64     `json:"pc_offset"`
	SemaphoreOffset uint64     `json:"semaphore_offset"`
	Insn            string     `json:"insn,omitempty"`
	NotePC          *uint64    `json:"note_pc,omitempty"`
	NoteSemaphore   *uint64    `json:"note_semaphore,omitempty"`
	PCError         string     `json:"pc_error,omitempty"`
	SemaphoreError  string     `json:"semaphore_error,omitempty"`
	Argv            []goccyArg `json:"argv"`

	PID                 int      `json:"pid,omitempty"`
	Hook                string   `json:"hook,omitempty"`
	Addr                uint64   `json:"addr,omitempty"`
	ArmedError          string   `json:"armed_error,omitempty"`
	Armed               *bool    `json:"armed,omitempty"`
	OrphanedError       string   `json:"orphaned_error,omitempty"`
	Orphaned            *bool    `json:"orphaned,omitempty"`
	Owners              []string `json:"owners,omitempty"`
	SemaphoreAddr       uint64   `json:"semaphore_addr,omitempty"`
	SemaphoreValueError string   `json:"semaphore_value_error,omitempty"`
	SemaphoreValue      *uint64  `json:"semaphore_value,omitempty"`
}

type goccyArg struct {
	Raw       string  `json:"raw"`
	Size      int     `json:"size"`
	Signed    bool    `json:"signed"`
	Float     bool    `json:"float,omitempty"`
	Error     string  `json:"error,omitempty"`
	Kind      string  `json:"kind,omitempty"`
	Location  *string `json:"location,omitempty"`
	Value     *int64  `json:"value,omitempty"`
	Reg       string  `json:"reg,omitempty"`
	RegOffset *int    `json:"reg_offset,omitempty"`
	RegHigh   string  `json:"reg_high,omitempty"`
	Index     *string `json:"index,omitempty"`
	Scale     *int    `json:"scale,omitempty"`
	Offset    *int64  `json:"offset,omitempty"`
	Symbol    string  `json:"symbol,omitempty"`
	Reloc     string  `json:"reloc,omitempty"`
}

var (
	goccyFalse = false
	goccyTrue  = true
)

// toGoccySite converts s, reusing the Argv of g.
func toGoccySite(g *goccySite, s *Site) {
	argv := g.Argv[:0]
	if argv == nil {
		argv = []goccyArg{}
	}
	for i := range s.Argv {
		a := &s.Argv[i]
		j := goccyArg{Raw: a.Raw, Size: a.Size, Signed: a.Signed, Float: a.Float, Error: a.Error}
		if a.Error == "" {
			j.Kind, j.Location = a.Kind, &a.Location
			switch a.Kind {
			case "const":
				j.Value = &a.Value
			case "register", "float_register":
				j.RegHigh = a.RegHigh
			case "memory", "symbol":
				j.Offset = &a.Offset
			case "sib":
				j.Index, j.Scale, j.Offset = &a.Index, &a.Scale, &a.Offset
			}
			if a.Kind != "const" {
				j.Reg = a.Reg
				if a.Reg != "" && a.RegOffset >= 0 {
					j.RegOffset = &a.RegOffset
				}
				j.Symbol = a.Symbol
				if a.Symbol != "" {
					j.Reloc = a.Reloc
				}
			}
		}
		argv = append(argv, j)
	}
	*g = goccySite{File: s.File, Provider: s.Provider, Name: s.Name, PC: s.PC, Base: s.Base,
		Semaphore: s.Semaphore, Args: s.Args, PCOffset: s.PCOffset, SemaphoreOffset: s.SemaphoreOffset,
		Insn: s.Insn, PCError: s.PCError, SemaphoreError: s.SemaphoreError, Argv: argv}
	if s.NotePC != s.PC || s.NoteSemaphore != s.Semaphore {
		g.NotePC, g.NoteSemaphore = &s.NotePC, &s.NoteSemaphore
	}
	if s.PID == 0 {
		return
	}
	g.PID, g.Hook, g.Addr = s.PID, s.Hook, s.Addr
	if g.ArmedError = s.ArmedError; g.ArmedError == "" {
		g.Armed = &s.Armed
	}
	switch {
	case !s.Armed:
	case s.OrphanedError != "":
		g.OrphanedError = s.OrphanedError
	case s.Orphaned:
		g.Orphaned = &goccyTrue
	default:
		g.Orphaned, g.Owners = &goccyFalse, s.Owners
		if g.Owners == nil {
			g.Owners = []string{}
		}
	}
	if s.Semaphore != 0 {
		g.SemaphoreAddr = s.SemaphoreAddr
		if g.SemaphoreValueError = s.SemaphoreValueError; g.SemaphoreValueError == "" {
			g.SemaphoreValue = s.SemaphoreValue
		}
	}
}
