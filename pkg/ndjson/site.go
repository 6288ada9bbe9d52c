package ndjson

import (
	"errors"
	"strconv"

	"github.com/sdtkit/sdtkit/internal/jsonenc"
)

// A Site is one probe site as sdtlist lists it. The package documentation
// gives each field's meaning and when it is written.
type Site struct {
	File            string    `json:"file"`
	Provider        string    `json:"provider"`
	Name            string    `json:"name"`
	PC              uint64    `json:"pc"`
	Base            uint64    `json:"base"`
	Semaphore       uint64    `json:"semaphore"` // 0 when the probe has none
	Args            string    `json:"args"`
	PCOffset        uint64    `json:"pc_offset"`
	SemaphoreOffset uint64    `json:"semaphore_offset"`
	Insn            string    `json:"insn"`           // "" when not known
	NotePC          uint64    `json:"note_pc"`        // = PC unless adjusted
	NoteSemaphore   uint64    `json:"note_semaphore"` // = Semaphore unless adjusted
	PCError         string    `json:"pc_error"`
	SemaphoreError  string    `json:"semaphore_error"`
	Argv            []SiteArg `json:"argv"`

	// Written by sdtlist -p, when PID is not 0.
	PID int `json:"pid"`
	// Hook is "loader" on the line of the dynamic loader's
	// _dl_debug_state, which is no probe: Provider is empty and Name
	// the function.
	Hook                string   `json:"hook"`
	Addr                uint64   `json:"addr"`
	Armed               bool     `json:"armed"`
	ArmedError          string   `json:"armed_error"`
	Orphaned            bool     `json:"orphaned"`
	OrphanedError       string   `json:"orphaned_error"`
	Owners              []string `json:"owners"`
	SemaphoreAddr       uint64   `json:"semaphore_addr"`
	SemaphoreValue      *uint64  `json:"semaphore_value"`
	SemaphoreValueError string   `json:"semaphore_value_error"`
}

// A SiteArg is one parsed argument of a Site. Kind decides which of the
// operand's fields are written.
type SiteArg struct {
	Raw    string `json:"raw"`
	Size   int    `json:"size"`
	Signed bool   `json:"signed"`
	Float  bool   `json:"float"`
	// Kind is const, register, memory, sib, symbol or float_register;
	// empty with Error.
	Kind      string `json:"kind"`
	Location  string `json:"location"`
	Reg       string `json:"reg"`
	RegOffset int    `json:"reg_offset"` // -1 when Reg is not in pt_regs, or empty
	RegHigh   string `json:"reg_high"`
	Index     string `json:"index"`
	Scale     int    `json:"scale"`
	Offset    int64  `json:"offset"`
	Value     int64  `json:"value"`
	Symbol    string `json:"symbol"`
	Reloc     string `json:"reloc"`
	Error     string `json:"error"`
}

// ParseSite decodes a line Read reported as KindSite.
func ParseSite(line []byte) (*Site, error) {
	st := new(Site)
	if err := decodeSite(line, st); err != nil {
		return nil, err
	}
	return st, nil
}

// decodeSite decodes the object of a site in b into st.
func decodeSite(b []byte, st *Site) error {
	return scanAll(b, func(s *scanner) error { return s.site(st) })
}

// scanAll reads b, which must hold one value and nothing after it, with
// read.
func scanAll(b []byte, read func(*scanner) error) error {
	s := scanner{b: b}
	err := read(&s)
	if err == nil && s.peek() != 0 {
		err = errSyntax
	}
	if errors.Is(err, errSyntax) {
		return syntaxError(b, s.i)
	}
	return err
}

// MarshalJSON returns the object AppendSite writes, without the newline.
func (s Site) MarshalJSON() ([]byte, error) {
	b := AppendSite(nil, &s)
	return b[:len(b)-1], nil
}

// UnmarshalJSON decodes the object of a site, as ParseSite does.
func (s *Site) UnmarshalJSON(b []byte) error { return decodeSite(b, s) }

// UnmarshalJSON decodes an element of "argv", whose reg_offset is absent
// when it is -1.
func (a *SiteArg) UnmarshalJSON(b []byte) error {
	return scanAll(b, func(s *scanner) error { return s.siteArg(a) })
}

// AppendSite appends the line of s to b: its JSON object, with the fields
// in the order the package documentation gives, and a newline.
func AppendSite(b []byte, s *Site) []byte {
	b = appendSiteHead(b, s)
	b = AppendArgv(append(b, `,"argv":`...), s.Argv)
	return appendSiteTail(b, s)
}

// AppendSiteArgv appends the line of s as AppendSite does, with argv,
// what AppendArgv appended for s.Argv, in place of encoding s.Argv
// again. The sites of a file share few argument strings (the 20,000 of
// a generated program about 50, the 566 of a libjvm.so 141), and
// encoding their argv is half the work of a line.
func AppendSiteArgv(b []byte, s *Site, argv []byte) []byte {
	b = appendSiteHead(b, s)
	b = append(append(b, `,"argv":`...), argv...)
	return appendSiteTail(b, s)
}

// appendSiteHead appends the fields before "argv".
func appendSiteHead(b []byte, s *Site) []byte {
	b = append(b, `{"file":`...)
	b = jsonenc.AppendString(b, s.File)
	b = appendString(b, "provider", s.Provider)
	b = appendString(b, "name", s.Name)
	b = appendUint(b, "pc", s.PC)
	b = appendUint(b, "base", s.Base)
	b = appendUint(b, "semaphore", s.Semaphore)
	b = appendString(b, "args", s.Args)
	b = appendUint(b, "pc_offset", s.PCOffset)
	b = appendUint(b, "semaphore_offset", s.SemaphoreOffset)
	if s.Insn != "" {
		b = appendString(b, "insn", s.Insn)
	}
	if s.NotePC != s.PC || s.NoteSemaphore != s.Semaphore {
		b = appendUint(b, "note_pc", s.NotePC)
		b = appendUint(b, "note_semaphore", s.NoteSemaphore)
	}
	if s.PCError != "" {
		b = appendString(b, "pc_error", s.PCError)
	}
	if s.SemaphoreError != "" {
		b = appendString(b, "semaphore_error", s.SemaphoreError)
	}
	return b
}

// appendSiteTail appends the fields after "argv" and ends the line.
func appendSiteTail(b []byte, s *Site) []byte {
	if s.PID == 0 {
		return append(b, '}', '\n')
	}
	b = appendInt(b, "pid", int64(s.PID))
	if s.Hook != "" {
		b = appendString(b, "hook", s.Hook)
	}
	if s.Addr != 0 {
		b = appendUint(b, "addr", s.Addr)
	}
	if s.ArmedError != "" {
		b = appendString(b, "armed_error", s.ArmedError)
	} else {
		b = appendBool(b, "armed", s.Armed)
	}
	switch {
	case !s.Armed:
	case s.OrphanedError != "":
		b = appendString(b, "orphaned_error", s.OrphanedError)
	case s.Orphaned:
		b = appendBool(b, "orphaned", true)
	default:
		b = appendBool(b, "orphaned", false)
		b = append(appendKey(b, "owners"), '[')
		for i, o := range s.Owners {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonenc.AppendString(b, o)
		}
		b = append(b, ']')
	}
	if s.Semaphore != 0 {
		if s.SemaphoreAddr != 0 {
			b = appendUint(b, "semaphore_addr", s.SemaphoreAddr)
		}
		switch {
		case s.SemaphoreValueError != "":
			b = appendString(b, "semaphore_value_error", s.SemaphoreValueError)
		case s.SemaphoreValue != nil:
			b = appendUint(b, "semaphore_value", *s.SemaphoreValue)
		}
	}
	return append(b, '}', '\n')
}

// AppendArgv appends the JSON array of argv, the value of a site's
// "argv", to b.
func AppendArgv(b []byte, argv []SiteArg) []byte {
	b = append(b, '[')
	for i := range argv {
		if i > 0 {
			b = append(b, ',')
		}
		b = argv[i].appendJSON(b)
	}
	return append(b, ']')
}

// appendJSON appends the JSON object of a.
func (a *SiteArg) appendJSON(b []byte) []byte {
	b = append(b, `{"raw":`...)
	b = jsonenc.AppendString(b, a.Raw)
	b = appendInt(b, "size", int64(a.Size))
	b = appendBool(b, "signed", a.Signed)
	if a.Float {
		b = appendBool(b, "float", true)
	}
	if a.Error != "" {
		b = appendString(b, "error", a.Error)
		return append(b, '}')
	}
	b = appendString(b, "kind", a.Kind)
	b = appendString(b, "location", a.Location)
	switch a.Kind {
	case "const":
		b = appendInt(b, "value", a.Value)
	case "register", "float_register":
		b = a.appendReg(b)
		if a.RegHigh != "" {
			b = appendString(b, "reg_high", a.RegHigh)
		}
	case "memory":
		b = a.appendReg(b)
		b = appendInt(b, "offset", a.Offset)
		b = a.appendSymbol(b)
	case "sib":
		b = a.appendReg(b)
		b = appendString(b, "index", a.Index)
		b = appendInt(b, "scale", int64(a.Scale))
		b = appendInt(b, "offset", a.Offset)
		b = a.appendSymbol(b)
	case "symbol":
		b = a.appendReg(b)
		b = appendString(b, "symbol", a.Symbol)
		b = appendInt(b, "offset", a.Offset)
	}
	return append(b, '}')
}

// appendReg appends reg and reg_offset, or nothing when there is no
// register (an absolute symbol, a sib operand without base).
func (a *SiteArg) appendReg(b []byte) []byte {
	if a.Reg == "" {
		return b
	}
	b = appendString(b, "reg", a.Reg)
	if a.RegOffset >= 0 {
		b = appendInt(b, "reg_offset", int64(a.RegOffset))
	}
	return b
}

// appendSymbol appends symbol, and reloc when it has one, for a memory
// or sib operand whose displacement holds a symbol.
func (a *SiteArg) appendSymbol(b []byte) []byte {
	if a.Symbol == "" {
		return b
	}
	b = appendString(b, "symbol", a.Symbol)
	if a.Reloc == "" {
		return b
	}
	return appendString(b, "reloc", a.Reloc)
}

func appendKey(b []byte, key string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

func appendString(b []byte, key, v string) []byte {
	return jsonenc.AppendString(appendKey(b, key), v)
}

func appendUint(b []byte, key string, v uint64) []byte {
	return strconv.AppendUint(appendKey(b, key), v, 10)
}

func appendInt(b []byte, key string, v int64) []byte {
	return strconv.AppendInt(appendKey(b, key), v, 10)
}

func appendBool(b []byte, key string, v bool) []byte {
	return strconv.AppendBool(appendKey(b, key), v)
}
